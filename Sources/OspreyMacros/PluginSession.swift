import OspreyMacroKit

/// Answers one request from the compiler, through OspreyMacroKit for expansions.
enum PluginSession {
    static func answer(to message: HostMessage, version: Int) -> PluginMessage {
        switch message {
        case .getCapability:
            return .getCapabilityResult(protocolVersion: version)
        case .expandAttachedMacro(let request):
            let expansion = MacroExpander.expand(
                MacroExpander.Request(
                    macro: request.macro.typeName,
                    role: request.macroRole,
                    attribute: request.attributeSyntax.source,
                    declaration: request.declSyntax.source
                ))
            let file = request.declSyntax.location.fileName
            let base = request.declSyntax.location.offset
            return .expandMacroResult(
                expandedSource: expansion.source,
                diagnostics: expansion.diagnostics.map {
                    WireDiagnostic($0, fileName: file, baseOffset: base)
                }
            )
        case .expandFreestandingMacro:
            return .expandMacroResult(
                expandedSource: nil, diagnostics: [.unplaced("Osprey declares no freestanding macros")])
        case .loadPluginLibrary:
            return .loadPluginLibraryResult(
                loaded: false, diagnostics: [.unplaced("Osprey's macro plugin loads no libraries")])
        case .unknown:
            return .expandMacroResult(
                expandedSource: nil,
                diagnostics: [.unplaced("Osprey's macro plugin does not know this request")])
        }
    }
}

extension WireDiagnostic {
    /// A diagnostic with no place in the source.
    static func unplaced(_ message: String) -> WireDiagnostic {
        WireDiagnostic(
            message: message, severity: "error", position: Position(fileName: "", offset: 0),
            highlights: [], notes: [], fixIts: [])
    }

    /// Places a kit diagnostic, whose offsets count from the declaration's first byte, in its file.
    init(_ diagnostic: MacroDiagnostic, fileName: String, baseOffset: Int) {
        func range(_ range: Range<Int>) -> PositionRange {
            PositionRange(
                fileName: fileName, startOffset: baseOffset + range.lowerBound,
                endOffset: baseOffset + range.upperBound
            )
        }
        self.init(
            message: diagnostic.message,
            severity: diagnostic.severity.rawValue,
            position: Position(fileName: fileName, offset: baseOffset + diagnostic.range.lowerBound),
            highlights: [range(diagnostic.range)],
            notes: diagnostic.notes.map {
                Note(
                    position: Position(fileName: fileName, offset: baseOffset + $0.range.lowerBound),
                    message: $0.message)
            },
            fixIts: diagnostic.fixIts.map { fixIt in
                FixIt(
                    message: fixIt.message,
                    changes: fixIt.changes.map { FixIt.Change(range: range($0.range), newText: $0.newText) })
            }
        )
    }
}
