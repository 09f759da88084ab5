// osprey-fuzz: runs one of Osprey's fuzz targets (see FuzzTarget).
//
//   osprey-fuzz TARGET [libFuzzer options and corpus folders]   (built by Scripts/fuzz.sh)
//   osprey-fuzz TARGET FILE-OR-FOLDER...                        (any build: replays inputs)
//
// Scripts/fuzz.sh links libFuzzer in; a plain build has no fuzzer, and replays the inputs given
// (a crash found by the fuzzer, or a corpus) through the target.

import CFuzzing
import Foundation
import OspreyFuzzTargets

let arguments = CommandLine.arguments
guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(
        Data("usage: osprey-fuzz TARGET [options or inputs]; targets: \(names)\n".utf8))
    exit(2)
}

/// The target libFuzzer calls into (its callback has no context).
nonisolated(unsafe) var selected = target

if cfuzzing_has_driver() != 0 {
    // libFuzzer reads the options; the target's name is not one of them.
    let forwarded = [arguments[0]] + arguments.dropFirst(2)
    var pointers = forwarded.map { strdup($0) } + [nil]
    var count = Int32(forwarded.count)
    let status = pointers.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
        return cfuzzing_run_driver(&count, &argv) { data, size in
            selected.run(Data(bytes: data!, count: size))
            return 0
        }
    }
    exit(status)
}

var replayed = 0
for path in arguments.dropFirst(2) {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
    let files =
        isFolder.boolValue
        ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
            "\(path)/\($0)"
        }
        : [path]
    for file in files {
        guard let input = FileManager.default.contents(atPath: file) else { continue }
        target.run(input)
        replayed += 1
    }
}
print("osprey-fuzz \(target.rawValue): replayed \(replayed) inputs")
