import Foundation
import LiteRecord
import Observation

/// `watch`: the titles of the notes, live. A `LiveQuery` on the main actor keeps them fresh
/// after every commit, from this process or any other (`notes add` in another terminal), and
/// `withObservationTracking` tells the loop when they changed, as it tells SwiftUI when to
/// draw a view again. Each new list prints one line: `notes: Groceries, Swift on Linux`.
///
/// Written once over `ModelDatabase`, like the other commands. The value is `nil` until the
/// first read arrives: on SQLite it is there when the live query is created, on PostgreSQL it
/// comes a moment later, and the `nil` keeps "not read yet" apart from "no notes".
@MainActor
struct NotesWatch<DB: ModelDatabase> {
    let db: DB

    /// Prints the titles now and after each change; returns once there are `count` notes (or
    /// more), and fails when `timeout` passes first. Without a count it watches until the
    /// timeout, or until interrupted when there is none.
    func run(until count: Int?, timeout: Duration?) async throws {
        // Any read, not only a query: here the titles alone, oldest note first.
        let titles = LiveQuery(db, initial: nil as [String]?) { tx in
            try tx.query(Note.self).order { $0.id }.fetchAll().map(\.title)
        }
        let signal = ChangeSignal()
        let timer = timeout.map { timeout in
            Task { @MainActor in
                try? await Task.sleep(for: timeout)
                signal.fire(changed: false)
            }
        }
        defer { timer?.cancel() }

        var printed: [String]?
        var reportedError = ""
        while true {
            if let error = titles.error, "\(error)" != reportedError {
                // The live query keeps the last list and tries again; say why it is stale.
                reportedError = "\(error)"
                FileHandle.standardError.write(Data("notes: watch: \(error)\n".utf8))
            }
            if let current = titles.value, current != printed {
                printed = current
                show(current)
                if let count, current.count >= count { return }
            }
            let changed = await signal.wait {
                // What the loop reads: a change to either wakes it.
                _ = titles.value
                _ = titles.error
            }
            if !changed {
                guard let count else { return }
                let seconds = timeout.map { "\($0.components.seconds)" } ?? "?"
                let seen = printed.map { "with \($0.count) note(s)" } ?? "before the notes were read"
                throw NotesError("watch: timed out after \(seconds) s \(seen), waiting for \(count)")
            }
        }
    }

    private func show(_ titles: [String]) {
        let line = "notes: " + (titles.isEmpty ? "(none)" : titles.joined(separator: ", "))
        // Written at once, not through `print`'s buffer: when standard output is a pipe, whoever
        // reads it waits for each line as it comes.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Wakes the watch loop when what it read changed, or when its time is up.
@MainActor
final class ChangeSignal {
    private var waiting: CheckedContinuation<Bool, Never>?
    private var timedOut = false

    /// Runs `read` under observation tracking and suspends until something it read changes
    /// (returns `true`) or the time is up (`false`).
    func wait(tracking read: () -> Void) async -> Bool {
        guard !timedOut else { return false }
        return await withCheckedContinuation { continuation in
            waiting = continuation
            withObservationTracking(read) {
                // Called as the value is about to change, on the main actor; the hop below
                // runs after the change is made.
                Task { @MainActor in self.fire(changed: true) }
            }
        }
    }

    /// Resumes the waiting loop, if it waits; `changed: false` means the time is up.
    func fire(changed: Bool) {
        if !changed { timedOut = true }
        waiting?.resume(returning: changed)
        waiting = nil
    }
}
