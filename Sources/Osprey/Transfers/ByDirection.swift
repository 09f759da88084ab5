/// One value for each direction of a transfer: what a dictionary keyed by
/// ``TransferProgress/Direction`` would hold, without a dictionary's allocation, hashing and
/// runtime metadata look-ups on every progress report of every request.
struct ByDirection<Element> {
    private var upload: Element?
    private var download: Element?

    subscript(direction: TransferProgress.Direction) -> Element? {
        get {
            switch direction {
            case .upload: upload
            case .download: download
            }
        }
        set {
            switch direction {
            case .upload: upload = newValue
            case .download: download = newValue
            }
        }
    }

    /// The directions that have a value, upload first, each with its value.
    var entries: [(direction: TransferProgress.Direction, value: Element)] {
        (upload.map { [(.upload, $0)] } ?? []) + (download.map { [(.download, $0)] } ?? [])
    }

    /// The values there are, upload first.
    var values: [Element] { entries.map(\.value) }
}

extension ByDirection: Sendable where Element: Sendable {}
