import RecountStore
import TestSupport
import Testing

/// The bytes of `text`, for keys and values.
private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// `value` as text, or `nil`.
private func text(_ value: UnsafeRawBufferPointer?) -> String? { value.map { String(decoding: $0, as: UTF8.self) } }

/// The value under `key` in `database`, as text, read in a transaction of its own.
private func value(_ key: String, in database: LMDBDatabase, of environment: LMDBEnvironment) throws -> String? {
    try environment.read { transaction in try bytes(key).withUnsafeBytes { text(try transaction.get(database, $0)) } }
}

private struct Rollback: Error {}

@Test func lmdbPutsGetsAndDeletesAcrossReopening() throws {
    try withTemporaryDirectory { directory in
        do {
            let environment = try LMDBEnvironment(directory: directory, mapSize: 1 << 24, maxDatabases: 1)
            let database = try environment.database(named: "ids")
            try environment.write { transaction in
                try bytes("b").withUnsafeBytes { key in
                    try bytes("two").withUnsafeBytes { try transaction.put(database, key, $0) }
                }
            }
        }
        let environment = try LMDBEnvironment(directory: directory, mapSize: 1 << 24, maxDatabases: 1)
        let database = try environment.database(named: "ids")
        #expect(try value("b", in: database, of: environment) == "two")
        #expect(try value("a", in: database, of: environment) == nil)
        let removed = try environment.write { transaction in
            try bytes("b").withUnsafeBytes { try transaction.delete(database, $0) }
        }
        #expect(removed)
        #expect(try value("b", in: database, of: environment) == nil)
    }
}

@Test func lmdbRangeVisitsKeysInByteOrderFromTheStart() throws {
    try withTemporaryDirectory { directory in
        let environment = try LMDBEnvironment(directory: directory, mapSize: 1 << 24, maxDatabases: 1)
        let database = try environment.database(named: "cells")
        try environment.write { transaction in
            for key in ["c2", "a1", "c1", "b1", "d1"] {
                try bytes(key).withUnsafeBytes { try transaction.put(database, $0, $0) }
            }
        }
        var visited: [String] = []
        try environment.read { transaction in
            try bytes("b").withUnsafeBytes { start in
                try transaction.forEach(in: database, from: start) { key, value in
                    #expect(text(key) == text(value))
                    guard key.first != UInt8(ascii: "d") else { return false }
                    visited.append(text(key)!)
                    return true
                }
            }
        }
        #expect(visited == ["b1", "c1", "c2"])
    }
}

@Test func lmdbWriteThatThrowsRollsBack() throws {
    try withTemporaryDirectory { directory in
        let environment = try LMDBEnvironment(directory: directory, mapSize: 1 << 24, maxDatabases: 1)
        let database = try environment.database(named: "ids")
        #expect(throws: Rollback.self) {
            try environment.write { transaction in
                try bytes("k").withUnsafeBytes { try transaction.put(database, $0, $0) }
                throw Rollback()
            }
        }
        #expect(try value("k", in: database, of: environment) == nil)
    }
}

@Test func lmdbReportsAFullMapAsFull() throws {
    try withTemporaryDirectory { directory in
        let environment = try LMDBEnvironment(directory: directory, mapSize: 64 << 10, maxDatabases: 1)
        let database = try environment.database(named: "ids")
        let value = [UInt8](repeating: 7, count: 1_000)
        let error = #expect(throws: StoreError.self) {
            try environment.write { transaction in
                for key in 0..<1_000 {
                    try withUnsafeBytes(of: UInt32(key).bigEndian) { key in
                        try value.withUnsafeBytes { try transaction.put(database, key, $0) }
                    }
                }
            }
        }
        #expect(error?.code == .full)
    }
}
