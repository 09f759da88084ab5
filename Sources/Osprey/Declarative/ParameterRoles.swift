// Papyrus's parameter roles. They are the type itself, so a protocol's implementations (and
// mocks written by hand) can take plain values; `@API` reads the names.

/// A query item: `func cards(username: Query<String>)` sends `?username=…` on any method.
public typealias Query<Value> = Value
/// A header whose name is the parameter's in Capital-Kebab-Case (`customHeader` → `Custom-Header`).
public typealias Header<Value> = Value
/// A body field, on any method that has a body.
public typealias Field<Value> = Value
/// The whole body; at most one per requirement, and never with fields.
public typealias Body<Value> = Value
/// A path placeholder's value (plain parameters named like a placeholder are path values too).
public typealias Path<Value> = Value
