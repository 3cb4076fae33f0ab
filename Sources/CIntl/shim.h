#ifndef SONGBOX_CINTL_SHIM_H
#define SONGBOX_CINTL_SHIM_H
/* glibc's message catalogs (gettext) and locales. Part of the C library: nothing to link.
 * Swift's Glibc module does not export <libintl.h>. */
#include <libintl.h>
#include <locale.h>
#include <stdio.h>

/* `value` with `digits` decimals, written as `locale` writes numbers (its decimal point), into
 * `buffer`. Only this thread switches locale, and only for the call: the process's own locale
 * (which Lua's number parsing reads) stays "C". snprintf is variadic, which Swift cannot call. */
static inline int songbox_format_decimal(char *buffer, size_t size, double value, int digits, locale_t locale) {
    locale_t previous = uselocale(locale);
    int written = snprintf(buffer, size, "%.*f", digits, value);
    uselocale(previous);
    return written;
}

#endif
