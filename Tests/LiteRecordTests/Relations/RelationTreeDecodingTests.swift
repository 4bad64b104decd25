import Foundation
import LiteRecord
import Testing

private struct AuthorWithBooks: Decodable, Equatable, Sendable {
    var author: NTAuthor
    var books: [NTBook]
}

/// Property names differ from the types': matching is by type.
private struct BookWithAuthor: Decodable, Equatable {
    var writer: NTAuthor?
    var volume: NTBook
}

private struct BookWithReviews: Decodable, Equatable {
    var book: NTBook
    var reviews: [NTReview]
}

private struct AuthorShelf: Decodable, Equatable {
    var author: NTAuthor
    var books: [BookWithReviews]
}

private struct ReviewCredit: Decodable, Equatable {
    var review: NTReview
    var book: BookWithAuthor?
}

private struct ArtistDiscography: Decodable, Equatable {
    var artist: ChinookArtist
    var albums: [AlbumWithTracks]
}

private struct AlbumWithTracks: Decodable, Equatable {
    var album: ChinookAlbum
    var tracks: [ChinookTrack]
}

private struct BookNeedingAuthor: Decodable {
    var book: NTBook
    var author: NTAuthor
}

private struct AuthorWithCount: Decodable {
    var author: NTAuthor
    var count: Int
}

private struct AuthorWithReviews: Decodable {
    var author: NTAuthor
    var reviews: [NTReview]
}

private struct EmployeeWithManager: Decodable {
    var employee: ChinookEmployee
    var manager: ChinookEmployee?
}

private struct EmployeeWithReports: Decodable, Equatable {
    var manager: ChinookEmployee
    var reports: [ChinookEmployee]
}

@Suite struct RelationTreeDecodingTests {
    @Test func toManyIntoAStructOfYourOwn() throws {
        let db = try NestedLibrary.make(seed: 21)
        let query = db.query(NTAuthor.self).order { $0.id }.including(all: NTBook.self) {
            $0.order { $0.year }
        }
        let decoded = try query.fetchAll(AuthorWithBooks.self)
        let tuples = try query.fetchAll()
        #expect(decoded == tuples.map { AuthorWithBooks(author: $0.0, books: $0.1) })
        #expect(decoded.count == (try db.query(NTAuthor.self).count()))
    }

    @Test func toOneWithANullKeyIntoAnOptional() throws {
        let db = try NestedLibrary.make(seed: 22)
        let decoded = try db.query(NTBook.self).order { $0.id }.including(one: NTAuthor.self)
            .fetchAll(BookWithAuthor.self)
        let books = try db.query(NTBook.self).order { $0.id }.fetchAll()
        let authors = try db.query(NTAuthor.self).fetchAll()
        #expect(decoded.map(\.volume) == books)
        #expect(decoded.map(\.writer) == books.map { book in authors.first { $0.id == book.authorID } })
        let someWithout = decoded.contains { $0.writer == nil }
        #expect(someWithout)
    }

    @Test func nestedTreesIntoNestedStructs() throws {
        let db = try NestedLibrary.make(seed: 23)
        let query = db.query(NTAuthor.self).order { $0.id }
            .including(all: NTBook.self) { $0.order { $0.id }.including(all: NTReview.self) }
        let shelves = try query.fetchAll(AuthorShelf.self)
        let tuples = try query.fetchAll()
        let expected = tuples.map { author, books in
            AuthorShelf(author: author, books: books.map { BookWithReviews(book: $0.0, reviews: $0.1) })
        }
        #expect(shelves == expected)
        // The same tree, read at a shallower depth: the reviews are left out.
        let flat = try query.fetchAll(AuthorWithBooks.self)
        #expect(flat == tuples.map { AuthorWithBooks(author: $0.0, books: $0.1.map(\.0)) })

        let credits = try db.query(NTReview.self).order { $0.id }
            .including(one: NTBook.self) { $0.including(one: NTAuthor.self) }
            .fetchAll(ReviewCredit.self)
        let creditTuples = try db.query(NTReview.self).order { $0.id }
            .including(one: NTBook.self) { $0.including(one: NTAuthor.self) }.fetchAll()
        #expect(
            credits
                == creditTuples.map { review, book in
                    ReviewCredit(
                        review: review, book: book.map { BookWithAuthor(writer: $0.1, volume: $0.0) })
                })
    }

    @Test func chinookArtistsAlbumsTracks() throws {
        try withTemporaryDirectory { directory in
            let db = try ChinookFixture.make(in: directory)
            let query = db.query(ChinookArtist.self).order { $0.artistId }
                .including(all: ChinookAlbum.self) {
                    $0.order { $0.albumId }.including(all: ChinookTrack.self)
                }
            let discographies = try query.fetchAll(ArtistDiscography.self)
            let artists = try db.query(ChinookArtist.self).order { $0.artistId }.fetchAll()
            let albums = try db.query(ChinookAlbum.self).order { $0.albumId }.fetchAll()
            let tracks = try db.query(ChinookTrack.self).order { $0.trackId }.fetchAll()
            let expected = artists.map { artist in
                ArtistDiscography(
                    artist: artist,
                    albums: albums.filter { $0.artistId == artist.artistId }.map { album in
                        AlbumWithTracks(album: album, tracks: tracks.filter { $0.albumId == album.albumId })
                    })
            }
            #expect(discographies == expected)
        }
    }

    @Test func asyncDecodingGivesTheSameValues() async throws {
        let db = try NestedLibrary.make(seed: 24)
        let query = db.query(NTAuthor.self).order { $0.id }.including(all: NTBook.self)
        let decoded = try await query.fetchAll(AuthorWithBooks.self)
        let tuples = try await query.fetchAll()
        #expect(decoded == tuples.map { AuthorWithBooks(author: $0.0, books: $0.1) })
    }

    @Test func aMissingRelatedRowForANonOptionalPropertyIsAClearError() throws {
        let db = try NestedLibrary.make(seed: 25)
        let error = schemaError {
            _ = try db.query(NTBook.self).including(one: NTAuthor.self).fetchAll(BookNeedingAuthor.self)
        }
        #expect(error?.message.contains("BookNeedingAuthor.author") == true, "\(String(describing: error))")
        #expect(error?.message.contains("NTAuthor?") == true)
    }

    @Test func aPropertyTheQueryDoesNotFetchIsAClearError() throws {
        let db = try NestedLibrary.make(seed: 26)
        let count = schemaError {
            _ = try db.query(NTAuthor.self).including(all: NTBook.self).fetchAll(AuthorWithCount.self)
        }
        #expect(
            count?.message.contains("AuthorWithCount.count asks for Int") == true,
            "\(String(describing: count))")
        #expect(count?.message.contains("NTAuthor with [NTBook]") == true)
        let reviews = schemaError {
            _ = try db.query(NTAuthor.self).including(all: NTBook.self).fetchAll(AuthorWithReviews.self)
        }
        #expect(
            reviews?.message.contains("AuthorWithReviews.reviews") == true, "\(String(describing: reviews))")
        let notAStruct = schemaError {
            _ = try db.query(NTAuthor.self).including(all: NTBook.self).fetchAll([NTBook].self)
        }
        #expect(notAStruct?.message.contains("cannot be decoded from NTAuthor with [NTBook]") == true)
        let toOneAsMany = schemaError {
            _ = try db.query(NTBook.self).including(one: NTAuthor.self).fetchAll(AuthorWithBooks.self)
        }
        #expect(
            toOneAsMany?.message.contains("AuthorWithBooks.") == true, "\(String(describing: toOneAsMany))")
    }

    @Test func aTypeThatIsBothTheRowAndItsRelatedRowIsAmbiguous() throws {
        try withTemporaryDirectory { directory in
            let db = try ChinookFixture.make(in: directory)
            let error = schemaError {
                _ = try db.query(ChinookEmployee.self).including(one: ChinookEmployee.self, via: \.reportsTo)
                    .fetchAll(EmployeeWithManager.self)
            }
            #expect(error?.message.contains("ambiguous") == true, "\(String(describing: error))")
            #expect(error?.message.contains("ChinookEmployee") == true)
            // To-many, the two are told apart: one row, and an array of rows.
            let teams = try db.query(ChinookEmployee.self).order { $0.employeeId }
                .including(all: ChinookEmployee.self, via: \.reportsTo).fetchAll(EmployeeWithReports.self)
            let employees = try db.query(ChinookEmployee.self).order { $0.employeeId }.fetchAll()
            let expected = employees.map { manager in
                EmployeeWithReports(
                    manager: manager, reports: employees.filter { $0.reportsTo == manager.employeeId })
            }
            #expect(teams == expected)
        }
    }
}
