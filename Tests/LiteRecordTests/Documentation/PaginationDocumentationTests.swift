import Foundation
import LiteRecord
import Testing

private struct Post: Model, Equatable {
    var id: Int64?
    var title: String
    var date: Date
}

/// The README's "Pagination" example, as written.
@Suite("README: pagination")
struct PaginationDocumentationTests {
    @Test func pagesAfterTheLastModel() throws {
        let db = try Database(.inMemory)
        // 120 posts, three per day, so pages split ties on the date.
        let posts = (0..<120).map {
            Post(id: nil, title: "post \($0)", date: Date(timeIntervalSince1970: Double($0 / 3) * 86_400))
        }
        _ = try db.insert(contentsOf: posts)
        var pages = 0

        var shown: [Post] = []
        let newest = db.query(Post.self).order { $0.date.descending }
        var page = try newest.page(after: nil, limit: 50).fetchAll()  // the first 50 posts
        while let last = page.last {
            shown += page
            page = try newest.page(after: last, limit: 50).fetchAll()  // the 50 after `last`
            pages += 1
        }

        #expect(pages == 3)
        let all = try db.query(Post.self).order { [$0.date.descending, $0.id.ascending] }.fetchAll()
        #expect(shown == all)
        #expect(shown.count == 120 && Set(shown.compactMap(\.id)).count == 120)
    }
}
