#if os(Linux)
    import Foundation
    import OspreyTesting
    import Testing

    @testable import Osprey

    /// The client sections of the Autobahn test suite (1–7, 9, 12–13) reproduced against the
    /// client: an echoing client, as Autobahn's, meets each case's frames, and what it received,
    /// echoed, answered and closed with is checked (see ``AutobahnCase``). Sections 12 and 13
    /// (permessage-deflate) run against Python's `websockets`, which compresses.
    @Suite("Autobahn: the test suite's client cases", .onItsOwnThread)
    struct AutobahnCaseTests {
        @Test("1: framing", arguments: AutobahnFramingCases.framing)
        func framing(_ autobahn: AutobahnCase) async throws { try await AutobahnRunner.check(autobahn) }

        @Test("2: pings and pongs", arguments: AutobahnFramingCases.pings)
        func pings(_ autobahn: AutobahnCase) async throws { try await AutobahnRunner.check(autobahn) }

        @Test("3: reserved bits", arguments: AutobahnFramingCases.reservedBits)
        func reservedBits(_ autobahn: AutobahnCase) async throws { try await AutobahnRunner.check(autobahn) }

        @Test("4: opcodes", arguments: AutobahnFramingCases.opcodes)
        func opcodes(_ autobahn: AutobahnCase) async throws { try await AutobahnRunner.check(autobahn) }

        @Test("5: fragmentation", arguments: AutobahnFramingCases.fragmentation)
        func fragmentation(_ autobahn: AutobahnCase) async throws { try await AutobahnRunner.check(autobahn) }

        @Test(
            "6: UTF-8",
            arguments: AutobahnUTF8Cases.fragments + AutobahnUTF8Cases.prefixes + AutobahnUTF8Cases.sequences)
        func utf8(_ autobahn: AutobahnCase) async throws { try await AutobahnRunner.check(autobahn) }

        @Test("7: the closing handshake", arguments: AutobahnCloseCases.handshake + AutobahnCloseCases.codes)
        func closing(_ autobahn: AutobahnCase) async throws { try await AutobahnRunner.check(autobahn) }

        // One case at a time: side by side, 16 MiB messages load the machine for every other suite.
        @Test(
            "9: limits, with the client's raised to the suite's sizes", .serialized,
            arguments: AutobahnLimitCase.all)
        func limits(_ limit: AutobahnLimitCase) async throws { try await AutobahnRunner.check(limit.make()) }

        @Test("the case tables hold the number of cases of each section")
        func counts() {
            #expect(AutobahnFramingCases.framing.count == 16)
            #expect(AutobahnFramingCases.pings.count == 11)
            #expect(AutobahnFramingCases.reservedBits.count == 7)
            #expect(AutobahnFramingCases.opcodes.count == 10)
            #expect(AutobahnFramingCases.fragmentation.count == 20)
            let utf8 = AutobahnUTF8Cases.fragments + AutobahnUTF8Cases.prefixes + AutobahnUTF8Cases.sequences
            #expect(utf8.count == 143)
            #expect(AutobahnCloseCases.handshake.count + AutobahnCloseCases.codes.count == 37)
            #expect(AutobahnLimitCase.all.count == 54)
            // Every case has its own number.
            let ids =
                (AutobahnFramingCases.framing + AutobahnFramingCases.pings + AutobahnFramingCases.reservedBits
                + AutobahnFramingCases.opcodes + AutobahnFramingCases.fragmentation + utf8
                + AutobahnCloseCases.handshake + AutobahnCloseCases.codes).map(\.id)
                + AutobahnLimitCase.all.map(\.id)
            #expect(Set(ids).count == ids.count)
        }
    }

    /// Autobahn's sections 12 and 13: messages of every size, compressed both ways, under each
    /// agreement a server may answer the client's offer with.
    @Suite(
        "Autobahn: permessage-deflate (sections 12 and 13)", .onItsOwnThread, .serialized,
        .enabled(
            if: WebSocketServer.python != nil, "OSPREY_PYTHON is not set: run the tests with Scripts/test.sh")
    )
    struct AutobahnCompressionTests {
        /// Message sizes, each with how many messages are echoed (Autobahn sends 1000 of each;
        /// fewer of the large ones here, to keep the suite's time).
        static let sizes: [(size: Int, count: Int)] = [
            (16, 1000), (64, 1000), (256, 1000), (1024, 1000), (4096, 100), (8192, 100), (16384, 100),
            (32768, 100), (65536, 10), (131072, 10), (262144, 10),
        ]

        /// Echoes `count` messages of `kind` and `size` from `server`: true when the server saw
        /// every echo equal to what it sent and closed with 1000.
        private static func echo(
            _ server: WebSocketServer, kind: String, size: Int, count: Int, parameters: String
        ) async throws {
            let api = try SocketAPI(baseURL: server.baseURL)
            let socket = try await api.webSocket(
                route: .get(
                    Endpoint(verbatim: server.baseURL + "/sends?kind=\(kind)&size=\(size)&count=\(count)"))
            ).value
            #expect(socket.extensions.count == 1, "permessage-deflate was agreed (\(parameters))")
            #expect(socket.extensions.first?.hasPrefix("permessage-deflate") == true)
            var echoed = 0
            for try await message in socket.messages {
                socket.send(message)
                echoed += 1
            }
            let closed = try await socket.closed.value
            #expect(
                closed == WebSocketClose(code: .normal, reason: "", initiator: .server),
                "\(kind) of \(size) bytes × \(count), agreement \(parameters)")
            #expect(echoed == count)
        }

        @Test(
            "12: every size of text, UTF-8, binary and random bytes, with the default agreement",
            arguments: ["text", "utf8", "binary", "random"])
        func sizes(kind: String) async throws {
            let server = try await WebSocketServer.start(deflate: true, deflateParameters: "")
            defer { server.stop() }
            for (size, count) in Self.sizes {
                try await Self.echo(server, kind: kind, size: size, count: count, parameters: "default")
            }
        }

        @Test(
            "13: every size of text under each agreement: context takeover and windows",
            arguments: [
                "client_no_context_takeover", "client_max_window_bits=9", "client_max_window_bits=15",
                "client_max_window_bits=9,client_no_context_takeover",
                "client_max_window_bits=15,client_no_context_takeover",
                "server_no_context_takeover,server_max_window_bits=9",
                "server_no_context_takeover,server_max_window_bits=9,client_no_context_takeover,client_max_window_bits=9",
            ])
        func agreements(parameters: String) async throws {
            let server = try await WebSocketServer.start(deflate: true, deflateParameters: parameters)
            defer { server.stop() }
            for (size, count) in Self.sizes {
                try await Self.echo(server, kind: "utf8", size: size, count: count, parameters: parameters)
            }
        }
    }
#endif
