// The public-suffix list (publicsuffix.org) through the system's libpsl, loaded with dlopen at
// run time (libpsl.so.5, which Debian's and Ubuntu's libcurl depend on), so that nothing needs
// libpsl's development headers. On platforms other than Linux nothing is ever loaded.

#ifndef OSPREY_CPUBLICSUFFIX_H
#define OSPREY_CPUBLICSUFFIX_H

/// Whether `domain` (lower case, without a leading or trailing dot) is a public suffix, such as
/// "com", "co.uk" or "github.io" (the list's ICANN and private sections both count): 1 or 0, or
/// -1 when libpsl or its data could not be loaded (then the caller decides).
int cpsl_is_public_suffix(const char *domain);

/// Why libpsl could not be loaded, or NULL when it was.
const char *cpsl_load_error(void);

#endif
