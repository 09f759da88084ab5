import Foundation
import GitHubClientExample
import Osprey

// osprey-example-github: a GitHub client (GitHubClientExample) against a loopback server that
// answers like GitHub (no internet needed). Run it with `swift run osprey-example-github`; it
// exits with 1 as soon as something is not as expected.

let github = try FakeGitHub()
defer { github.stop() }
let api = GitHubAPI(baseURL: github.baseURL, token: FakeGitHub.token)
let expectedNames = FakeGitHub.users["octocat"]!.repositories

await step("1. octocat's repositories, 3 a page, following the Link header's next page") {
    var page = try await api.repositories(of: "octocat", perPage: 3).value
    var names: [String] = []
    while true {
        names += page.items.map(\.name)
        print("  \(page.items.map(\.name).joined(separator: ", "))")
        guard let next = api.nextPage(after: page), let url = page.nextURL else { break }
        print("  → next: \(url.path)?\(url.query ?? "")")
        page = try await next.value
    }
    check(names == expectedNames, "expected \(expectedNames), got \(names)")
    let targets = github.server.requests.map(\.target)
    check(
        targets == [
            "/users/octocat/repos?per_page=3", "/user/583231/repos?per_page=3&page=2",
            "/user/583231/repos?per_page=3&page=3",
        ],
        "unexpected requests \(targets)")
}

await step("2. The same in one call: allRepositories(of:)") {
    let all = try await api.allRepositories(of: "octocat", perPage: 3).value
    print("  \(all.count) repositories, \(all.reduce(0) { $0 + $1.stargazersCount }) stars")
    check(all.map(\.name) == expectedNames, "expected \(expectedNames), got \(all.map(\.name))")
    check(all.first?.fullName == "octocat/boysenberry-repo-1", "snake_case keys were not decoded")
}

await step("3. A user that does not exist: 404, with GitHub's error body as a GitHubError") {
    let (status, error) = await refusal(of: api.repositories(of: "no-such-user"))
    print("  \(status): \(error.message), see \(error.documentationURL?.absoluteString ?? "?")")
    check(status == 404 && error.message == "Not Found", "expected 404 Not Found")
    check(error.documentationURL?.host == "docs.github.com", "documentation_url was not decoded")
}

await step("4. Creating a repository: POST with a JSON body") {
    let created = try await api.createRepository(NewRepository(name: "osprey-example", isPrivate: true)).value
    print("  created \(created.fullName)")
    check(created.fullName == "octocat/osprey-example", "unexpected repository \(created)")
    let sent = github.server.requests.last
    check(
        sent?.bodyText == #"{"name":"osprey-example","private":true}"#,
        "unexpected body \(sent?.bodyText ?? "")")
    check(sent?.value(forHeader: "Content-Type") == "application/json", "the body was not sent as JSON")
    check(
        sent?.value(forHeader: "Accept") == "application/vnd.github+json",
        "GitHub's media type was not asked for")
}

await step("5. A name already taken: 422, with the refused field") {
    let (status, error) = await refusal(of: api.createRepository(NewRepository(name: "Spoon-Knife")))
    print("  \(status): \(error)")
    check(status == 422 && error.errors?.first?.field == "name", "expected 422 naming the field")
}

await step("6. Without a token: 401") {
    let anonymous = GitHubAPI(baseURL: github.baseURL)
    let (status, error) = await refusal(of: anonymous.createRepository(NewRepository(name: "anything")))
    print("  \(status): \(error)")
    check(status == 401 && error.message == "Requires authentication", "expected 401")
}

print("✓ done")
