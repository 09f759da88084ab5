import Dispatch

/// The queue handlers run on when neither the handler nor the promise's producer chose one.
///
/// A library-owned concurrent queue, not `.main`: on Linux nothing guarantees that the main queue
/// is serviced, and handlers are `@Sendable`, so running them concurrently is race-free.
@usableFromInline
let promiseDefaultQueue = DispatchQueue(
    label: "osprey.promises.default",
    attributes: .concurrent,
    target: .global()
)
