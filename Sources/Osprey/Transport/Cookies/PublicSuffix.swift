import Foundation

#if canImport(CPublicSuffix)
    import CPublicSuffix
#endif

/// Whether a domain is a public suffix (publicsuffix.org): a name under which anyone can register
/// their own, such as `com`, `co.uk` or `github.io`. A cookie whose `Domain` is one would reach
/// every site under it, so RFC 6265 §5.3 step 5 ignores it (unless the domain is the response's
/// host itself: then it stays with that host alone).
///
/// On Linux the list is the system's, through libpsl (`libpsl.so.5`, which Debian's and Ubuntu's
/// libcurl depend on; its data is `/usr/share/publicsuffix`, updated with the system). Where
/// libpsl cannot be loaded, and on Apple platforms, which offer no public API for the list, a
/// built-in fallback answers: every single-label name, and a fixed set of the most used
/// multi-label suffixes (``fallbackSuffixes``). The fallback misses the rest of the list (more
/// than 9000 rules), so there a cookie for a rarer suffix is kept as a domain cookie.
enum PublicSuffix {
    /// What answers on this system.
    enum Source: Equatable {
        /// The system's libpsl and its list.
        case libpsl
        /// The built-in fallback: single labels and ``PublicSuffix/fallbackSuffixes``.
        case fallback
    }

    /// What answers on this system, decided once.
    static let source: Source = {
        #if canImport(CPublicSuffix)
            // `com` alone would be a suffix by libpsl's implicit `*` rule even with no data:
            // two rules only a list holds show that it has one.
            if cpsl_is_public_suffix("co.uk") == 1, cpsl_is_public_suffix("github.io") == 1 { return .libpsl }
        #endif
        return .fallback
    }()

    /// Whether `domain` (lower case, without a leading dot) is a public suffix. A name with a
    /// trailing dot (`com.`, the same name absolute) is read without it.
    static func contains(_ domain: String) -> Bool {
        if domain.hasSuffix("."), domain.count > 1 { return contains(String(domain.dropLast())) }
        #if canImport(CPublicSuffix)
            if source == .libpsl {
                // libpsl reads the labels up to a NUL: a name with one would be read short.
                guard !domain.utf8.contains(0) else { return true }
                return domain.withCString { cpsl_is_public_suffix($0) } != 0
            }
        #endif
        return isFallbackSuffix(domain)
    }

    /// The fallback's answer: a name of one label (a top-level domain, or an intranet name that
    /// cannot be told apart from one without the list), or one of ``fallbackSuffixes``.
    static func isFallbackSuffix(_ domain: String) -> Bool {
        !domain.contains(".") || fallbackSuffixes.contains(domain)
    }

    /// The multi-label suffixes the fallback knows: the second-level registries of the largest
    /// country domains, and the hosting platforms whose users' sites are most often one name
    /// apart (a subset of publicsuffix.org's ICANN and private sections).
    static let fallbackSuffixes: Set<String> = [
        // ICANN section
        "co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "ac.uk", "gov.uk", "nhs.uk",
        "police.uk", "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au", "co.nz",
        "net.nz", "org.nz", "govt.nz", "ac.nz", "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ad.jp",
        "ed.jp", "gr.jp", "lg.jp", "co.kr", "or.kr", "ne.kr", "go.kr", "ac.kr", "com.cn", "net.cn",
        "org.cn", "gov.cn", "edu.cn", "com.hk", "org.hk", "net.hk", "com.tw", "org.tw", "net.tw",
        "com.sg", "org.sg", "net.sg", "edu.sg", "gov.sg", "co.in", "net.in", "org.in", "firm.in",
        "gen.in", "ind.in", "ac.in", "edu.in", "gov.in", "co.za", "org.za", "net.za", "gov.za",
        "ac.za", "com.br", "net.br", "org.br", "gov.br", "edu.br", "com.mx", "org.mx", "gob.mx",
        "edu.mx", "com.ar", "org.ar", "gob.ar", "com.tr", "org.tr", "net.tr", "gov.tr", "edu.tr",
        "co.il", "org.il", "ac.il", "gov.il", "co.id", "or.id", "ac.id", "go.id", "com.my", "org.my",
        "gov.my", "com.ph", "com.vn", "com.ua", "com.pl", "net.pl", "org.pl", "com.es", "org.es",
        "com.pt", "com.ru", "com.eg", "com.sa", "com.pk", "com.ng", "co.ke", "co.th", "in.th",
        "ac.th", "go.th", "com.co", "com.pe", "com.ve", "com.uy", "com.ec", "gov.ie", "ac.at",
        "co.at", "or.at", "gv.at",
        // Private section
        "github.io", "githubusercontent.com", "gitlab.io", "herokuapp.com", "herokussl.com",
        "vercel.app", "now.sh", "netlify.app", "pages.dev", "workers.dev", "web.app",
        "firebaseapp.com", "appspot.com", "blogspot.com", "cloudfront.net", "s3.amazonaws.com",
        "elasticbeanstalk.com", "azurewebsites.net", "cloudapp.net", "azurestaticapps.net",
        "onrender.com", "fly.dev", "glitch.me", "repl.co",
        "ngrok.io", "duckdns.org", "dyndns.org", "no-ip.org",
        "myshopify.com", "wixsite.com", "readthedocs.io",
        "bitbucket.io", "codeberg.page", "deno.dev", "translate.goog",
    ]
}
