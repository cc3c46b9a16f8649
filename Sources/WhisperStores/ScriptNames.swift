import WhisperStorage

/// The names of a script's KEYS or of its ARGV, in order — the one place both sides read them.
///
/// The Lua source binds each name to its position (`local k_pending = KEYS[2]`, `local a_to =
/// ARGV[1]`; `ScriptNames.lua`), so a script body reads names, never numbers; the Swift caller
/// writes the values by switching over the same cases in order (`RedisCommand.write`), so the
/// two cannot drift apart, and a new name does not compile until the caller writes it. What
/// follows the named items (the rate-limit logs, a group message's extra keys) starts at
/// `k_rest` / `a_rest`.
package protocol ScriptNames: CaseIterable, RawRepresentable where RawValue == String {}

extension ScriptNames {
    /// `local <prefix><name> = <table>[i]` for every case, then `<prefix>rest`, the first
    /// position after them. `first` is where the first case sits (after another set of names).
    package static func lua(_ table: String, _ prefix: String, first: Int = 1) -> String {
        var lines = ""
        var position = first
        for name in allCases {
            lines += "local \(prefix)\(name.rawValue) = \(table)[\(position)]\n"
            position += 1
        }
        return lines + "local \(prefix)rest = \(position)\n"
    }
}

extension RedisScript {
    /// A script whose keys and arguments are named by `keys` and `arguments`; `prelude` (helper
    /// functions, which may read the names) and `body` follow the bindings.
    package init<Keys: ScriptNames, Arguments: ScriptNames>(keys: Keys.Type, arguments: Arguments.Type,
                                                            prelude: String = "", _ body: String) {
        self.init(source: Keys.lua("KEYS", "k_") + Arguments.lua("ARGV", "a_") + prelude + body)
    }

    /// Only the keys named (the arguments are a list, from `a_rest` = 1).
    package init<Keys: ScriptNames>(keys: Keys.Type, prelude: String = "", _ body: String) {
        self.init(source: Keys.lua("KEYS", "k_") + "local a_rest = 1\n" + prelude + body)
    }

    /// Only the arguments named (the keys are a list, from `k_rest` = 1).
    package init<Arguments: ScriptNames>(arguments: Arguments.Type, prelude: String = "", _ body: String) {
        self.init(source: "local k_rest = 1\n" + Arguments.lua("ARGV", "a_") + prelude + body)
    }

    /// As above, the arguments named by `arguments` and then `more`, a set several scripts
    /// share (`RouteArgument`, `PresenceScripts.AnnounceSetting`).
    package init<Keys: ScriptNames, Arguments: ScriptNames, More: ScriptNames>(
        keys: Keys.Type, arguments: Arguments.Type, _ more: More.Type, prelude: String = "", _ body: String
    ) {
        let bindings = Keys.lua("KEYS", "k_") + Arguments.lua("ARGV", "a_")
            + More.lua("ARGV", "a_", first: Arguments.allCases.count + 1)
        self.init(source: bindings + prelude + body)
    }
}

extension RedisCommand {
    /// Writes one value per name, in the names' order: `value` switches over the name.
    package mutating func write<Names: ScriptNames>(_ names: Names.Type, _ value: (Names, inout RedisCommand) -> Void) {
        for name in Names.allCases { value(name, &self) }
    }
}

extension RedisScriptCall {
    /// A call whose named keys and arguments are given by name, then the unnamed rest (for
    /// the scripts off the message path, which build arrays).
    package init<Keys: ScriptNames, Arguments: ScriptNames>(_ script: RedisScript, keys: (Keys) -> [UInt8],
                                                            arguments: (Arguments) -> [UInt8],
                                                            moreKeys: [[UInt8]] = [], moreArguments: [[UInt8]] = []) {
        self.init(script, keys: Keys.allCases.map(keys) + moreKeys, arguments: Arguments.allCases.map(arguments) + moreArguments)
    }
}

/// Where `route(...)` (MessageScripts' prelude) publishes: this node, the node key prefix and
/// the delivery channel prefix — the arguments every routing script ends its names with.
package enum RouteArgument: String, ScriptNames {
    case node, nodePrefix, channelPrefix
}

extension RedisKeys {
    package func write(_ argument: RouteArgument, node: String, into command: inout RedisCommand) {
        switch argument {
        case .node: command.append(node)
        case .nodePrefix: command.append(joined.node)
        case .channelPrefix: command.append(joined.deliveryChannel)
        }
    }

    /// The `RouteArgument`s, in order, for the scripts that build arrays.
    package func routeArguments(node: String) -> [[UInt8]] {
        RouteArgument.allCases.map { argument in
            switch argument {
            case .node: Array(node.utf8)
            case .nodePrefix: Array(joined.node.utf8)
            case .channelPrefix: Array(joined.deliveryChannel.utf8)
            }
        }
    }
}
