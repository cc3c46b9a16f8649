import ArgumentParser
import WhisperClient
import WhisperProtocol

/// `whisper group create|add|remove|send|list`.
struct GroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group", abstract: "Groups: pairwise fan-out, one messageId per message.",
        subcommands: [Create.self, AddMembers.self, RemoveMembers.self, SendToGroup.self, List.self])

    /// Connects, runs `body`, prints the group state it returns (`group <id> v<version> <title> <members…>`).
    static func run(_ global: GlobalOptions, _ body: (ClientSession) throws -> [GroupState]) throws {
        try global.connected { session in
            for state in try body(session) {
                EventPrinter.line("group \(state.groupId) v\(state.version) \(state.title) \(state.memberIds.map(\.string).joined(separator: " "))")
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a group you own.")
        @OptionGroup var global: GlobalOptions
        @Argument var title: String
        @Argument(help: "Members' Whisper IDs.") var members: [String] = []

        func run() throws {
            let ids = try members.map(parseID)
            try GroupCommand.run(global) { [try $0.createGroup(title: title, members: ids)] }
        }
    }

    struct AddMembers: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add members (owner only).")
        @OptionGroup var global: GlobalOptions
        @Argument var groupId: String
        @Argument var members: [String]

        func run() throws {
            let ids = try members.map(parseID)
            try GroupCommand.run(global) { [try $0.updateGroup(groupId, add: ids)] }
        }
    }

    struct RemoveMembers: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove members (owner), or yourself (leave).")
        @OptionGroup var global: GlobalOptions
        @Argument var groupId: String
        @Argument var members: [String]

        func run() throws {
            let ids = try members.map(parseID)
            try GroupCommand.run(global) { [try $0.updateGroup(groupId, remove: ids)] }
        }
    }

    struct SendToGroup: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "send", abstract: "Send a text to every other member.")
        @OptionGroup var global: GlobalOptions
        @Argument var groupId: String
        @Argument var text: String

        func run() throws {
            try GroupCommand.run(global) { session in
                try session.send(text: text, toGroup: groupId)
                return []
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your groups.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try GroupCommand.run(global) { try $0.groups() }
        }
    }
}
