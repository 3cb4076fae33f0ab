#ifndef SONGBOX_CINTL_SHIM_H
#define SONGBOX_CINTL_SHIM_H
/* glibc's message catalogs (gettext) and locales. Part of the C library: nothing to link.
 * Swift's Glibc module does not export <libintl.h>. */
#include <libintl.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <time.h>

/* `value` with `digits` decimals, written as `locale` writes numbers (its decimal point), into
 * `buffer`. Only this thread switches locale, and only for the call: the process's own locale
 * (which Lua's number parsing reads) stays "C". snprintf is variadic, which Swift cannot call. */
static inline int songbox_format_decimal(char *buffer, size_t size, double value, int digits, locale_t locale) {
    locale_t previous = uselocale(locale);
    int written = snprintf(buffer, size, "%.*f", digits, value);
    uselocale(previous);
    return written;
}

/* The local date and time to the minute of `seconds` (Unix time), in `locale`'s way of writing a
 * date (its D_FMT: 26/11/26 in he_IL, 11/26/2026 in en_US), into `buffer`; 0 when it does not fit. */
static inline size_t songbox_format_minute(char *buffer, size_t size, long long seconds, locale_t locale) {
    time_t when = (time_t)seconds;
    struct tm parts;
    if (localtime_r(&when, &parts) == NULL) return 0;
    char format[64];
    if (snprintf(format, sizeof format, "%s %%H:%%M", nl_langinfo_l(D_FMT, locale)) >= (int)sizeof format) return 0;
    return strftime_l(buffer, size, format, &parts, locale);
}

#endif
