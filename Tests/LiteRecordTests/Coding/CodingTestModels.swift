import Foundation

// The model the row encoder and decoder tests share: every kind of value a column can hold.

struct CodableStats: Codable, Equatable {
    var wins: Int
    var losses: Int
}

enum CodableTeam: String, Codable {
    case red, blue
}

struct CodablePlayer: Codable, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var team: CodableTeam?
    var tags: [String]
    var stats: CodableStats
}
