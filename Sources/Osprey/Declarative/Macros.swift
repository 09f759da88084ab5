import Foundation

// The declarative API macros. `@API` and `@Mock` generate code; the others mark a protocol or a
// requirement for `@API` to read and generate nothing themselves. They are expanded by the
// OspreyMacros plugin, which has no dependencies (see DESIGN.md).

/// Generates `<Protocol>API`, a final ``AbstractAPI`` subclass that implements each requirement
/// as an HTTP call described by its attributes.
///
/// ```swift
/// @API
/// protocol Users {
///     @GET("/users/:username/todos")
///     func getTodos(username: String) async throws -> [Todo]
/// }
///
/// let users: Users = UsersAPI(provider: Provider(baseURL: "https://api.example.com/"))
/// ```
@attached(peer, names: suffixed(API))
public macro API() = #externalMacro(module: "OspreyMacros", type: "APIMacro")

/// Generates `<Protocol>Mock`, whose requirements answer with handlers set through
/// `mock<Requirement> { arguments in … }`.
@attached(peer, names: suffixed(Mock))
public macro Mock() = #externalMacro(module: "OspreyMacros", type: "MockMacro")

/// A `GET` request to `path` (`:name` or `{name}` placeholders are filled from the arguments).
@attached(peer)
public macro GET(_ path: String) = #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
/// A `POST` request to `path`.
@attached(peer)
public macro POST(_ path: String) = #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
/// A `PUT` request to `path`.
@attached(peer)
public macro PUT(_ path: String) = #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
/// A `PATCH` request to `path`.
@attached(peer)
public macro PATCH(_ path: String) = #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
/// A `DELETE` request to `path`.
@attached(peer)
public macro DELETE(_ path: String) = #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
/// An `OPTIONS` request to `path`.
@attached(peer)
public macro OPTIONS(_ path: String) = #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
/// A `HEAD` request to `path`.
@attached(peer)
public macro HEAD(_ path: String) = #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
/// A `TRACE` request to `path`.
@attached(peer)
public macro TRACE(_ path: String) = #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
/// A `CONNECT` request to `path`.
@attached(peer)
public macro CONNECT(_ path: String) = #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
/// A request with any method, such as `@HTTP("/cache", method: "PURGE")`.
@attached(peer)
public macro HTTP(_ path: String, method: String) =
    #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")

/// Static headers for a requirement, or for every requirement of a protocol.
@attached(peer)
public macro Headers(_ headers: [String: String]) =
    #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")

/// A static `Authorization` header: `.basic(username:password:)` or `.bearer(_:)`.
@attached(peer)
public macro Authorization(_ value: AuthorizationHeader) =
    #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")

/// Encodes bodies as JSON (the default), with an encoder of your own; `decoder` decodes the
/// responses.
@attached(peer)
public macro JSON(encoder: JSONEncoder = JSONEncoder(), decoder: JSONDecoder = JSONDecoder()) =
    #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")

/// Encodes bodies as `application/x-www-form-urlencoded`, optionally with an encoding of your own.
@attached(peer)
public macro URLForm(encoder: ParameterEncoding = ParameterEncoding()) =
    #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")

/// Encodes bodies as `multipart/form-data`; every body parameter must be a ``Part``. A fixed
/// boundary is for byte-exact tests; each request gets a random one otherwise.
@attached(peer)
public macro Multipart(boundary: String = "") =
    #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")

/// Maps query, field and body keys (and, on a requirement, its response's keys), such as
/// `@KeyMapping(.snakeCase)`.
@attached(peer)
public macro KeyMapping(_ mapping: KeyMapping) =
    #externalMacro(module: "OspreyMacros", type: "AnnotationMacro")
