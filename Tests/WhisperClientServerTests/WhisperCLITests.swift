import Foundation
import Testing
import WhisperProtocol
import WhisperTesting

/// The built `whisper` binary end to end, as a user in a terminal would run it: two identities
/// in two home folders, a message, its receipt, and a recovery from the printed words.
struct CLIOutputError: Error {
    let output: String
}

@Suite(.serialized) struct WhisperCLITests {
    struct CLI {
        let server: TestServer
        let home = NSTemporaryDirectory() + "whisper-cli-" + UUID().uuidString.lowercased()

        func run(_ arguments: [String], stdin: String? = nil) async throws -> Subprocess.Outcome {
            try await Subprocess.capture(try BuiltProducts.whisper,
                                         arguments + ["--home", home, "--server", "http://127.0.0.1:\(server.publicPort)"],
                                         environment: ["WHISPER_PASSPHRASE": "correct horse"], stdin: stdin)
        }

        /// `whisper init`: the 12 words, then the Whisper ID.
        func initialise() async throws -> (words: String, id: String) {
            let outcome = try await run(["init"])
            #expect(outcome.exitStatus == 0, "\(outcome.stderr)")
            let lines = outcome.stdout.split(separator: "\n").map(String.init)
            guard lines.count == 2, WhisperID.validate(lines[1]) != nil else { throw CLIOutputError(output: outcome.stdout) }
            return (lines[0], lines[1])
        }
    }

    @Test func initSendListen_deliverAMessageAndItsReceipt_andRecoverPrintsTheQueue() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = CLI(server: server), bob = CLI(server: server)
        let (aliceWords, aliceId) = try await alice.initialise()
        #expect(aliceWords.split(separator: " ").count == 12)
        let (_, bobId) = try await bob.initialise()
        #expect(try await alice.run(["whoami"]).stdout == aliceId + "\n")
        #expect(!(try String(contentsOfFile: alice.home + "/identity.json", encoding: .utf8)).contains(aliceWords))

        let send = try await alice.run(["send", bobId, "hello from the CLI"])
        #expect(send.exitStatus == 0, "\(send.stderr)")
        guard let messageId = send.stdout.split(separator: "\n").first(where: { $0.hasPrefix("sent ") })?.dropFirst(5) else {
            Issue.record("no sent line: \(send.stdout)")
            return
        }
        let listen = try await bob.run(["listen", "--count", "1", "--seconds", "20"])
        #expect(listen.exitStatus == 0, "\(listen.stderr)")
        #expect(listen.stdout.contains("message \(messageId) \(aliceId) hello from the CLI"), "\(listen.stdout)")
        let receipts = try await alice.run(["listen", "--seconds", "2"])
        #expect(receipts.stdout.contains("delivered \(messageId) \(bobId)"), "\(receipts.stdout)")
        #expect(try await alice.run(["outbox"]).stdout.contains("delivered \(messageId) \(bobId)"))

        // Bob writes while Alice is away; Alice's words on a fresh home folder get her id and the message.
        #expect(try await bob.run(["send", aliceId, "while you were out"]).exitStatus == 0)
        let phone = CLI(server: server)
        let phraseFile = phone.home + ".phrase"
        try aliceWords.write(toFile: phraseFile, atomically: true, encoding: .utf8)
        let recovered = try await phone.run(["recover", "--phrase-file", phraseFile])
        #expect(recovered.exitStatus == 0, "\(recovered.stderr)")
        #expect(recovered.stdout.contains(" \(bobId) while you were out\n"), "\(recovered.stdout)")
        #expect(recovered.stdout.hasSuffix(aliceId + "\n"))
    }

    @Test func chat_sendsEachLineOfStdin_andPrintsWhatArrives() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = CLI(server: server), bob = CLI(server: server)
        let (_, aliceId) = try await alice.initialise()
        let (_, bobId) = try await bob.initialise()
        #expect(try await bob.run(["send", aliceId, "are you there?"]).exitStatus == 0)

        // stdin ends at once (a file): the lines must still go out before chat leaves.
        let chat = try await alice.run(["chat", bobId], stdin: "yes\n\nhere I am\n")
        #expect(chat.exitStatus == 0, "\(chat.stderr)")
        #expect(chat.stdout.contains(" \(bobId) are you there?\n"), "\(chat.stdout)")
        #expect(chat.stdout.split(separator: "\n").filter { $0.hasPrefix("sent ") }.count == 2, "the empty line is not sent: \(chat.stdout)")

        let listen = try await bob.run(["listen", "--count", "2", "--seconds", "20"])
        #expect(listen.stdout.contains(" \(aliceId) yes\n") && listen.stdout.contains(" \(aliceId) here I am\n"), "\(listen.stdout)")
    }

    @Test func exitCodes_tellScriptsWhatHappened() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let alice = CLI(server: server)
        #expect(try await alice.run(["whoami"]).exitStatus == 78, "no identity yet")
        let (_, aliceId) = try await alice.initialise()
        #expect(try await alice.run(["init"]).exitStatus == 78, "already initialised")
        #expect(try await alice.run(["send", "WSP-AAAA-AAAA-AAAA", "x"]).exitStatus == 65, "a bad checksum")
        let wrong = try await Subprocess.capture(try BuiltProducts.whisper, ["outbox", "--home", alice.home],
                                                 environment: ["WHISPER_PASSPHRASE": "wrong"])
        #expect(wrong.exitStatus == 77)
        let offline = try await Subprocess.capture(try BuiltProducts.whisper, ["add", aliceId, "--home", alice.home,
                                                                                "--server", "http://127.0.0.1:9"],
                                                   environment: ["WHISPER_PASSPHRASE": "correct horse"])
        #expect(offline.exitStatus == 69, "server unreachable: \(offline.stderr)")
    }

    @Test func sendFile_isSavedDecryptedByTheRecipientsListen() async throws {
        let server = try await ClientDevice.serverWithStore()
        defer { server.stop() }
        let alice = CLI(server: server), bob = CLI(server: server)
        _ = try await alice.initialise()
        let (_, bobId) = try await bob.initialise()
        let path = alice.home + "/../" + UUID().uuidString + "-photo.jpg"
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try bytes.write(to: URL(fileURLWithPath: path))
        let send = try await alice.run(["send", bobId, "--file", path])
        #expect(send.exitStatus == 0, "\(send.stderr)")
        let folder = bob.home + "-files"
        let listen = try await bob.run(["listen", "--count", "1", "--seconds", "20", "--files", folder])
        let saved = listen.stdout.split(separator: "\n").first { $0.hasPrefix("file ") }?.split(separator: " ").last.map(String.init)
        #expect(listen.stdout.contains("message "), "\(listen.stdout)\(listen.stderr)")
        #expect(saved?.hasPrefix(folder + "/") == true && saved?.hasSuffix("-photo.jpg") == true, "\(listen.stdout)")
        #expect(saved.flatMap { FileManager.default.contents(atPath: $0) } == bytes)
    }
}
