// Loads libpsl with dlopen and asks it; see include/CPublicSuffix.h.

#include "CPublicSuffix.h"

#include <stddef.h>

#if defined(__linux__)

#include <dlfcn.h>
#include <pthread.h>

// libpsl's PSL_TYPE_ANY (PSL_TYPE_ICANN | PSL_TYPE_PRIVATE): "github.io" is in the private
// section, and a cookie for it would reach every GitHub Pages site.
enum { CPSL_TYPE_ANY = 3 };

typedef struct psl_ctx psl_ctx;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const psl_ctx *context = NULL;
static int (*is_public_suffix2)(const psl_ctx *, const char *, int) = NULL;
static const char *load_error = NULL;

static void load(void) {
    void *library = dlopen("libpsl.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        load_error = "libpsl.so.5 could not be loaded";
        return;
    }
    const psl_ctx *(*builtin)(void) = (const psl_ctx *(*)(void))dlsym(library, "psl_builtin");
    psl_ctx *(*latest)(const char *) = (psl_ctx * (*)(const char *)) dlsym(library, "psl_latest");
    is_public_suffix2 = (int (*)(const psl_ctx *, const char *, int))dlsym(library, "psl_is_public_suffix2");
    if (is_public_suffix2 == NULL) {
        load_error = "libpsl.so.5 lacks psl_is_public_suffix2 (libpsl 0.15 or later is needed)";
        return;
    }
    // The newest of the distribution's file (/usr/share/publicsuffix, updated with the system)
    // and the data built into the library; kept for the life of the process.
    if (latest != NULL) context = latest(NULL);
    if (context == NULL && builtin != NULL) context = builtin();
    if (context == NULL) load_error = "libpsl found no public-suffix data";
}

int cpsl_is_public_suffix(const char *domain) {
    pthread_once(&once, load);
    if (context == NULL || domain == NULL) return -1;
    return is_public_suffix2(context, domain, CPSL_TYPE_ANY) ? 1 : 0;
}

const char *cpsl_load_error(void) {
    pthread_once(&once, load);
    return load_error;
}

#else

int cpsl_is_public_suffix(const char *domain) {
    (void)domain;
    return -1;
}

const char *cpsl_load_error(void) { return "libpsl is loaded on Linux only"; }

#endif
