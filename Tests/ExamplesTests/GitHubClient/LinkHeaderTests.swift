import GitHubClientExample
import Testing

@Suite("LinkHeader: RFC 8288 links as GitHub sends them, read leniently")
struct LinkHeaderTests {
    typealias Link = LinkHeader.Link

    @Test(
        "a header value reads into its links",
        arguments: [
            (
                #"<https://api.github.com/user/1/repos?page=2>; rel="next", <https://api.github.com/user/1/repos?page=5>; rel="last""#,
                [
                    Link(target: "https://api.github.com/user/1/repos?page=2", relations: ["next"]),
                    Link(target: "https://api.github.com/user/1/repos?page=5", relations: ["last"]),
                ]
            ),
            // Unquoted and upper-case relations, no spaces, several relations in one.
            (
                "</a>;rel=NEXT,</b>;rel=\"prev first\"",
                [Link(target: "/a", relations: ["next"]), Link(target: "/b", relations: ["prev", "first"])]
            ),
            // Commas and semicolons inside the target and inside quoted values are not separators.
            (
                #"</search?q=a,b;c>; title="x, y; z"; rel="next""#,
                [Link(target: "/search?q=a,b;c", relations: ["next"])]
            ),
            // Only the first rel counts; other parameters are skipped; escapes are removed.
            (##"</a>; anchor="#\"top\""; rel=next; rel=last"##, [Link(target: "/a", relations: ["next"])]),
            // A link without rel has no relations.
            ("</a>; type=\"text/html\"", [Link(target: "/a", relations: [])]),
            // Malformed links are skipped, the rest is read.
            ("garbage, </a>; rel=next, <unclosed; rel=last", [Link(target: "/a", relations: ["next"])]),
            ("", []),
            (" , ,", []),
        ] as [(String, [Link])])
    func reads(value: String, links: [Link]) {
        #expect(LinkHeader(value).links == links)
    }

    @Test("a malformed link between two good ones is skipped, and so is one followed by junk")
    func skipsMalformed() {
        let header = LinkHeader(#"</1>; rel="prev", /2; rel="next", </3>; rel="last", </4>; rel=next junk"#)
        #expect(header.links.map(\.target) == ["/1", "/3"])
        #expect(header.target(forRelation: "next") == nil)
    }

    @Test("target(forRelation:) finds the first link with the relation, in any case")
    func findsRelation() {
        let header = LinkHeader(#"</a>; rel="prev", </b>; rel="next last", </c>; rel="next""#)
        #expect(header.target(forRelation: "next") == "/b")
        #expect(header.target(forRelation: "LAST") == "/b")
        #expect(header.target(forRelation: "first") == nil)
    }
}
