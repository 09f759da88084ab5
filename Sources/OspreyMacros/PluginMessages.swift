// The compiler's plugin protocol, as far as Osprey's macros need it: the messages are the
// compiler's `HostToPluginMessage` / `PluginToHostMessage` enums, encoded the way Swift
// synthesises `Codable` for enums with labelled associated values (`{"case": {"label": …}}`).
// Fields Osprey does not read are left out; unknown keys are ignored when decoding.

/// A message from the compiler. Only the cases the plugin acts on are decoded; anything else is
/// `unknown` and still gets an answer, so the compiler never waits.
enum HostMessage: Decodable {
    case getCapability(protocolVersion: Int?)
    case expandAttachedMacro(AttachedExpansion)
    case expandFreestandingMacro(discriminator: String)
    case loadPluginLibrary(libraryPath: String)
    case unknown

    private enum CodingKeys: String, CodingKey {
        case getCapability, expandAttachedMacro, expandFreestandingMacro, loadPluginLibrary
    }

    private struct Capability: Decodable {
        struct Host: Decodable { var protocolVersion: Int }
        var capability: Host?
    }

    private struct Freestanding: Decodable { var discriminator: String }
    private struct Library: Decodable { var libraryPath: String }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let capability = try container.decodeIfPresent(Capability.self, forKey: .getCapability) {
            self = .getCapability(protocolVersion: capability.capability?.protocolVersion)
        } else if let attached = try container.decodeIfPresent(
            AttachedExpansion.self, forKey: .expandAttachedMacro)
        {
            self = .expandAttachedMacro(attached)
        } else if let freestanding = try container.decodeIfPresent(
            Freestanding.self, forKey: .expandFreestandingMacro)
        {
            self = .expandFreestandingMacro(discriminator: freestanding.discriminator)
        } else if let library = try container.decodeIfPresent(Library.self, forKey: .loadPluginLibrary) {
            self = .loadPluginLibrary(libraryPath: library.libraryPath)
        } else {
            self = .unknown
        }
    }
}

/// `expandAttachedMacro`: the attribute and the declaration it is attached to, as source text.
struct AttachedExpansion: Decodable {
    struct MacroReference: Decodable {
        var moduleName: String
        var typeName: String
        var name: String
    }

    var macro: MacroReference
    var macroRole: String
    var discriminator: String
    var attributeSyntax: Syntax
    var declSyntax: Syntax
}

/// A piece of source: its exact text (with surrounding trivia) and where its first byte is.
struct Syntax: Decodable {
    struct Location: Decodable {
        var fileName: String
        /// The UTF-8 offset of the text's first byte in its file.
        var offset: Int
    }

    var source: String
    var location: Location
}

/// A message to the compiler.
enum PluginMessage: Encodable {
    case getCapabilityResult(protocolVersion: Int)
    case expandMacroResult(expandedSource: String?, diagnostics: [WireDiagnostic])
    case loadPluginLibraryResult(loaded: Bool, diagnostics: [WireDiagnostic])

    private enum CodingKeys: String, CodingKey {
        case getCapabilityResult, expandMacroResult, loadPluginLibraryResult
    }

    private enum CapabilityKeys: String, CodingKey { case capability }
    private enum VersionKeys: String, CodingKey { case protocolVersion }
    private enum ResultKeys: String, CodingKey { case expandedSource, diagnostics, loaded }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .getCapabilityResult(let version):
            var result = container.nestedContainer(keyedBy: CapabilityKeys.self, forKey: .getCapabilityResult)
            var capability = result.nestedContainer(keyedBy: VersionKeys.self, forKey: .capability)
            try capability.encode(version, forKey: .protocolVersion)
        case .expandMacroResult(let source, let diagnostics):
            var result = container.nestedContainer(keyedBy: ResultKeys.self, forKey: .expandMacroResult)
            try result.encodeIfPresent(source, forKey: .expandedSource)
            try result.encode(diagnostics, forKey: .diagnostics)
        case .loadPluginLibraryResult(let loaded, let diagnostics):
            var result = container.nestedContainer(keyedBy: ResultKeys.self, forKey: .loadPluginLibraryResult)
            try result.encode(loaded, forKey: .loaded)
            try result.encode(diagnostics, forKey: .diagnostics)
        }
    }
}

/// A diagnostic as the compiler reads it: positions are UTF-8 offsets in the named file.
struct WireDiagnostic: Encodable {
    struct Position: Encodable {
        var fileName: String
        var offset: Int
    }

    struct PositionRange: Encodable {
        var fileName: String
        var startOffset: Int
        var endOffset: Int
    }

    struct Note: Encodable {
        var position: Position
        var message: String
    }

    struct FixIt: Encodable {
        struct Change: Encodable {
            var range: PositionRange
            var newText: String
        }

        var message: String
        var changes: [Change]
    }

    var message: String
    var severity: String
    var position: Position
    var highlights: [PositionRange]
    var notes: [Note]
    var fixIts: [FixIt]
}
