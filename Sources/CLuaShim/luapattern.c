// The sandbox's string.find, match, gmatch and gsub: Lua 5.4 patterns (reference manual §6.4.1)
// matched by songbox's own matcher, which counts its steps and charges them to the state's
// instruction budget. Lua's matcher backtracks in C between two VM instructions, where the count
// hook cannot see it; this one is stopped like any Lua loop (docs/lua-api.md, "Limits").
//
// Written from the manual's description; the behaviour (results and error messages) is checked
// against the stock functions by Tests/SongboxScriptTests/lua/patterns.lua.
#include "luashim_internal.h"

#include <lauxlib.h>
#include <string.h>

/// At most this many captures in one pattern (as Lua).
#define PM_MAX_CAPTURES 32
/// Nested matcher calls before "pattern too complex": bounds the C stack.
#define PM_MAX_DEPTH 200
/// Steps are charged to the budget in batches of this many (and what is left at the end).
#define PM_CHARGE_EVERY 4096

#define PM_ESCAPE '%'
#define PM_SPECIALS "^$*+?.([%-"

/// A capture's length while it is open, and the length of a position capture `()`.
#define PM_OPEN (-1)
#define PM_POSITION (-2)

#if LUA_VERSION_RELEASE_NUM >= 50405
#define PM_BAD_INDEX_PATTERN "invalid capture index %%%d in pattern"
#define PM_BAD_INDEX_REPLACEMENT "invalid capture index %%%d in replacement string"
#else
#define PM_BAD_INDEX_PATTERN "invalid capture index %%%d"
#define PM_BAD_INDEX_REPLACEMENT "invalid capture index %%%d"
#endif

typedef struct {
    lua_State *L;
    const char *subject, *subject_end;  // the whole subject (positions count from `subject`)
    const char *pattern_end;
    int depth_left;  // nested pm_match calls still allowed
    int count;       // captures made (open or closed)
    long steps;      // not charged yet
    struct { const char *start; ptrdiff_t length; } captures[PM_MAX_CAPTURES];
} pm_state;

static void pm_flush(pm_state *m) {
    long steps = m->steps;
    m->steps = 0;
    if (steps > 0) songbox_charge(m->L, steps);
}

/// One step of matching work; charged in batches.
static inline void pm_step(pm_state *m, long n) {
    m->steps += n;
    if (m->steps >= PM_CHARGE_EVERY) pm_flush(m);
}

static void pm_begin(pm_state *m, lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
    m->L = L;
    m->subject = s;
    m->subject_end = s + ls;
    m->pattern_end = p + lp;
    m->steps = 0;
}

/// Before each attempt at a new subject position.
static inline void pm_reset(pm_state *m) {
    m->count = 0;
    m->depth_left = PM_MAX_DEPTH;
}

// MARK: single characters

/// Does `c` belong to the class letter `k` (`a c d g l p s u w x z`, upper case for the
/// complement)? Any other `k` stands for itself.
static int pm_class(int c, int k) {
    int in;
    switch (k | 0x20) {  // lower case for letters
    case 'a': in = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); break;
    case 'c': in = c < 32 || c == 127; break;
    case 'd': in = c >= '0' && c <= '9'; break;
    case 'g': in = c > 32 && c < 127; break;
    case 'l': in = c >= 'a' && c <= 'z'; break;
    case 'p': in = (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126); break;
    case 's': in = c == ' ' || (c >= '\t' && c <= '\r'); break;
    case 'u': in = c >= 'A' && c <= 'Z'; break;
    case 'w': in = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); break;
    case 'x': in = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); break;
    case 'z': in = c == 0; break;  // deprecated in 5.2, still understood by 5.4
    default: return k == c;
    }
    if (k >= 'A' && k <= 'Z') in = !in;
    return in;
}

/// The end of the single-character class at `p` (one past it): `.`, `%x`, `[set]` or a char.
static const char *pm_class_end(pm_state *m, const char *p) {
    char first = *p++;
    if (first == PM_ESCAPE) {
        if (p >= m->pattern_end) luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (first == '[') {
        if (p < m->pattern_end && *p == '^') p++;
        // The first member is taken as is, even a ']'.
        do {
            if (p >= m->pattern_end) luaL_error(m->L, "malformed pattern (missing ']')");
            char c = *p++;
            if (c == PM_ESCAPE) {
                if (p >= m->pattern_end) luaL_error(m->L, "malformed pattern (missing ']')");
                p++;
            }
        } while (p >= m->pattern_end || *p != ']');
        return p + 1;
    }
    return p;
}

/// Does `c` belong to the set from `set` (its '[') to `close` (its ']')?
static int pm_in_set(int c, const char *set, const char *close) {
    int wanted = 1;
    const char *p = set + 1;
    if (*p == '^') { wanted = 0; p++; }
    for (; p < close; p++) {
        if (*p == PM_ESCAPE) {
            p++;
            if (pm_class(c, (unsigned char)*p)) return wanted;
        } else if (p + 2 < close && p[1] == '-') {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2]) return wanted;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return wanted;
        }
    }
    return !wanted;
}

/// Does the subject byte at `s` match the class from `p` to `end` (pm_class_end)?
static inline int pm_single(pm_state *m, const char *s, const char *p, const char *end) {
    if (s >= m->subject_end) return 0;
    pm_step(m, 1);
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case PM_ESCAPE: return pm_class(c, (unsigned char)p[1]);
    case '[': return pm_in_set(c, p, end - 1);
    default: return (unsigned char)*p == c;
    }
}

// MARK: the matcher

static const char *pm_match(pm_state *m, const char *s, const char *p);

/// `%bxy` at `p` (pointing at x): the end of the balanced run at `s`, or NULL.
static const char *pm_balance(pm_state *m, const char *s, const char *p) {
    if (p + 1 >= m->pattern_end) luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->subject_end || *s != p[0]) return NULL;
    char open = p[0], close = p[1];
    int level = 1;
    for (const char *t = s + 1; t < m->subject_end; t++) {
        pm_step(m, 1);
        if (*t == close) {
            if (--level == 0) return t + 1;
        } else if (*t == open) {
            level++;
        }
    }
    return NULL;
}

/// A back-reference `%1`..`%9` (the digit `digit`) at `s`: the end of the repeated text, or NULL.
static const char *pm_backref(pm_state *m, const char *s, int digit) {
    int index = digit - '1';
    if (index < 0 || index >= m->count || m->captures[index].length == PM_OPEN)
        luaL_error(m->L, PM_BAD_INDEX_PATTERN, index + 1);
    ptrdiff_t length = m->captures[index].length;
    if (length < 0) return NULL;  // a position capture repeats nothing
    pm_step(m, 1 + length);
    if (m->subject_end - s >= length && memcmp(m->captures[index].start, s, (size_t)length) == 0)
        return s + length;
    return NULL;
}

/// The greedy `*` and `+`: the longest run of the class first, then shorter ones.
static const char *pm_greedy(pm_state *m, const char *s, const char *p, const char *end) {
    ptrdiff_t run = 0;
    while (pm_single(m, s + run, p, end)) run++;
    for (; run >= 0; run--) {
        const char *result = pm_match(m, s + run, end + 1);
        if (result != NULL) return result;
    }
    return NULL;
}

/// The lazy `-`: the shortest run of the class first.
static const char *pm_lazy(pm_state *m, const char *s, const char *p, const char *end) {
    for (;;) {
        const char *result = pm_match(m, s, end + 1);
        if (result != NULL) return result;
        if (!pm_single(m, s, p, end)) return NULL;
        s++;
    }
}

static const char *pm_open_capture(pm_state *m, const char *s, const char *p, ptrdiff_t kind) {
    if (m->count >= PM_MAX_CAPTURES) luaL_error(m->L, "too many captures");
    int index = m->count++;
    m->captures[index].start = s;
    m->captures[index].length = kind;
    const char *result = pm_match(m, s, p);
    if (result == NULL) m->count--;
    return result;
}

static const char *pm_close_capture(pm_state *m, const char *s, const char *p) {
    int index = m->count - 1;
    while (index >= 0 && m->captures[index].length != PM_OPEN) index--;
    if (index < 0) luaL_error(m->L, "invalid pattern capture");
    m->captures[index].length = s - m->captures[index].start;
    const char *result = pm_match(m, s, p);
    if (result == NULL) m->captures[index].length = PM_OPEN;
    return result;
}

/// Matches the pattern from `p` at subject position `s`: the end of the match, or NULL.
/// Recursion (one level per capture, per `?` taken and per attempt after a repetition) is
/// bounded by PM_MAX_DEPTH; a plain sequence of items loops instead.
static const char *pm_match(pm_state *m, const char *s, const char *p) {
    if (m->depth_left-- == 0) luaL_error(m->L, "pattern too complex");
    pm_step(m, 1);
    const char *const pend = m->pattern_end;
    for (;;) {
        if (p >= pend) break;  // the pattern is done: a match
        if (*p == '(') {
            s = (p + 1 < pend && p[1] == ')') ? pm_open_capture(m, s, p + 2, PM_POSITION)
                                              : pm_open_capture(m, s, p + 1, PM_OPEN);
            break;
        }
        if (*p == ')') { s = pm_close_capture(m, s, p + 1); break; }
        if (*p == '$' && p + 1 == pend) { if (s != m->subject_end) s = NULL; break; }
        if (*p == PM_ESCAPE && p + 1 < pend) {
            char k = p[1];
            if (k == 'b') {
                s = pm_balance(m, s, p + 2);
                if (s == NULL) break;
                p += 4;
                continue;
            }
            if (k == 'f') {
                p += 2;
                if (p >= pend || *p != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
                const char *end = pm_class_end(m, p);
                pm_step(m, 1);
                int before = s == m->subject ? 0 : (unsigned char)s[-1];
                int after = s < m->subject_end ? (unsigned char)*s : 0;
                if (!pm_in_set(before, p, end - 1) && pm_in_set(after, p, end - 1)) { p = end; continue; }
                s = NULL;
                break;
            }
            if (k >= '0' && k <= '9') {
                s = pm_backref(m, s, k);
                if (s == NULL) break;
                p += 2;
                continue;
            }
        }
        // A single-character class, maybe with a quantifier.
        const char *end = pm_class_end(m, p);
        char quantifier = end < pend ? *end : 0;
        if (!pm_single(m, s, p, end)) {
            if (quantifier == '*' || quantifier == '?' || quantifier == '-') { p = end + 1; continue; }
            s = NULL;
            break;
        }
        if (quantifier == '?') {
            const char *result = pm_match(m, s + 1, end + 1);
            if (result != NULL) { s = result; break; }
            p = end + 1;
            continue;
        }
        if (quantifier == '+') { s = pm_greedy(m, s + 1, p, end); break; }
        if (quantifier == '*') { s = pm_greedy(m, s, p, end); break; }
        if (quantifier == '-') { s = pm_lazy(m, s, p, end); break; }
        s++;
        p = end;
    }
    m->depth_left++;
    return s;
}

// MARK: captures

/// Pushes capture `index` of the match from `s` to `e` (capture 0 is the whole match when the
/// pattern has none): its text, or its position for a position capture `()`.
static void pm_push_capture(pm_state *m, int index, const char *s, const char *e) {
    if (index >= m->count) {
        if (index != 0) luaL_error(m->L, PM_BAD_INDEX_REPLACEMENT, index + 1);
        lua_pushlstring(m->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t length = m->captures[index].length;
    if (length == PM_OPEN) luaL_error(m->L, "unfinished capture");
    if (length == PM_POSITION)
        lua_pushinteger(m->L, (lua_Integer)(m->captures[index].start - m->subject) + 1);
    else
        lua_pushlstring(m->L, m->captures[index].start, (size_t)length);
}

/// Pushes every capture (or the whole match when there are none and `s` is not NULL).
static int pm_push_captures(pm_state *m, const char *s, const char *e) {
    int n = (m->count == 0 && s != NULL) ? 1 : m->count;
    luaL_checkstack(m->L, n, "too many captures");
    for (int i = 0; i < n; i++) pm_push_capture(m, i, s, e);
    return n;
}

// MARK: find and match

/// A 1-based start position from a relative one, clamped below to 1.
static size_t pm_start(lua_Integer position, size_t length) {
    if (position > 0) return (size_t)position;
    if (position == 0) return 1;
    if (position < -(lua_Integer)length) return 1;
    return length + (size_t)position + 1;
}

static int pm_has_specials(const char *p, size_t lp) {
    for (size_t i = 0; i < lp; i++)
        if (p[i] != 0 && strchr(PM_SPECIALS, p[i]) != NULL) return 1;
    return 0;
}

/// Plain search, each byte compared charged as a step.
static const char *pm_plain(pm_state *m, const char *s, size_t ls, const char *p, size_t lp) {
    if (lp == 0) return s;
    if (lp > ls) return NULL;
    const char *last = s + (ls - lp);  // the last start that fits
    const char *at = s;
    while (at <= last) {
        const char *hit = (const char *)memchr(at, p[0], (size_t)(last - at) + 1);
        if (hit == NULL) { pm_step(m, last - at + 1); return NULL; }
        pm_step(m, (hit - at) + (long)lp);
        if (memcmp(hit + 1, p + 1, lp - 1) == 0) return hit;
        at = hit + 1;
    }
    return NULL;
}

static int pm_find_or_match(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t start = pm_start(luaL_optinteger(L, 3, 1), ls);
    if (start > ls + 1) { luaL_pushfail(L); return 1; }
    pm_state m;
    if (find && (lua_toboolean(L, 4) || !pm_has_specials(p, lp))) {
        pm_begin(&m, L, s, ls, p, lp);
        const char *hit = pm_plain(&m, s + start - 1, ls - start + 1, p, lp);
        pm_flush(&m);
        if (hit == NULL) { luaL_pushfail(L); return 1; }
        lua_pushinteger(L, (lua_Integer)(hit - s) + 1);
        lua_pushinteger(L, (lua_Integer)(hit - s) + (lua_Integer)lp);
        return 2;
    }
    int anchored = lp > 0 && *p == '^';
    if (anchored) { p++; lp--; }
    pm_begin(&m, L, s, ls, p, lp);
    const char *at = s + start - 1;
    for (;;) {
        pm_reset(&m);
        const char *e = pm_match(&m, at, p);
        if (e != NULL) {
            pm_flush(&m);
            if (find) {
                lua_pushinteger(L, (lua_Integer)(at - s) + 1);
                lua_pushinteger(L, (lua_Integer)(e - s));
                return pm_push_captures(&m, NULL, NULL) + 2;
            }
            return pm_push_captures(&m, at, e);
        }
        if (anchored || at >= m.subject_end) break;
        at++;
    }
    pm_flush(&m);
    luaL_pushfail(L);
    return 1;
}

static int pm_find(lua_State *L) { return pm_find_or_match(L, 1); }
static int pm_match_function(lua_State *L) { return pm_find_or_match(L, 0); }

// MARK: gmatch

typedef struct {
    const char *next;        // where the next search starts
    const char *last_match;  // the end of the last match (an empty match may not end there again)
    const char *pattern;
    pm_state m;
} pm_iterator;

/// The iterator gmatch returns. Upvalues: subject, pattern, state (a userdata).
static int pm_gmatch_next(lua_State *L) {
    pm_iterator *it = (pm_iterator *)lua_touserdata(L, lua_upvalueindex(3));
    it->m.L = L;  // the iterator may be called from another coroutine than gmatch
    it->m.steps = 0;
    for (const char *at = it->next; at <= it->m.subject_end; at++) {
        pm_reset(&it->m);
        const char *e = pm_match(&it->m, at, it->pattern);
        if (e != NULL && e != it->last_match) {
            it->next = it->last_match = e;
            pm_flush(&it->m);
            return pm_push_captures(&it->m, at, e);
        }
    }
    it->next = it->m.subject_end + 1;  // done: later calls return nothing at once
    pm_flush(&it->m);
    return 0;
}

static int pm_gmatch(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t start = pm_start(luaL_optinteger(L, 3, 1), ls);
    if (start > ls + 1) start = ls + 2;  // past the end: the iterator finds nothing
    lua_settop(L, 2);
    pm_iterator *it = (pm_iterator *)lua_newuserdatauv(L, sizeof *it, 0);
    pm_begin(&it->m, L, s, ls, p, lp);
    it->next = s + start - 1;
    it->last_match = NULL;
    it->pattern = p;
    lua_pushcclosure(L, pm_gmatch_next, 3);
    return 1;
}

// MARK: gsub

/// Appends the replacement string (argument 3) for the match from `s` to `e`.
static void pm_add_string(pm_state *m, luaL_Buffer *b, const char *s, const char *e) {
    lua_State *L = m->L;
    size_t length;
    const char *r = lua_tolstring(L, 3, &length);
    const char *end = r + length;
    pm_step(m, (long)length);
    while (r < end) {
        const char *escape = (const char *)memchr(r, PM_ESCAPE, (size_t)(end - r));
        if (escape == NULL) { luaL_addlstring(b, r, (size_t)(end - r)); break; }
        luaL_addlstring(b, r, (size_t)(escape - r));
        char k = escape + 1 < end ? escape[1] : 0;
        if (k == PM_ESCAPE) {
            luaL_addchar(b, PM_ESCAPE);
        } else if (k == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (k >= '1' && k <= '9') {
            pm_push_capture(m, k - '1', s, e);
            luaL_addvalue(b);  // a position capture is an integer: added as its text
        } else {
            luaL_error(L, "invalid use of '%c' in replacement string", PM_ESCAPE);
        }
        r = escape + 2;
    }
}

/// Appends the replacement for the match from `s` to `e`; 0 when the match is kept as it is.
static int pm_add_replacement(pm_state *m, luaL_Buffer *b, const char *s, const char *e, int type) {
    lua_State *L = m->L;
    if (type == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = pm_push_captures(m, s, e);
        pm_flush(m);  // the callback's own instructions are counted by the hook
        lua_call(L, n, 1);
    } else if (type == LUA_TTABLE) {
        pm_push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        pm_add_string(m, b, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1))
        return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

static int pm_gsub(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int type = lua_type(L, 3);
    lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L, type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION || type == LUA_TTABLE,
                     3, "string/function/table");
    int anchored = lp > 0 && *p == '^';
    if (anchored) { p++; lp--; }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    pm_state m;
    pm_begin(&m, L, s, ls, p, lp);
    const char *at = s, *last_match = NULL;
    lua_Integer n = 0;
    int changed = 0;
    while (n < max) {
        pm_reset(&m);
        const char *e = pm_match(&m, at, p);
        if (e != NULL && e != last_match) {
            n++;
            changed |= pm_add_replacement(&m, &b, at, e, type);
            at = last_match = e;
        } else if (at < m.subject_end) {
            luaL_addchar(&b, *at++);
        } else {
            break;
        }
        if (anchored) break;
    }
    pm_flush(&m);
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, at, (size_t)(m.subject_end - at));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

// MARK: installation

void songbox_install_patterns(lua_State *L, int table) {
    table = lua_absindex(L, table);
    static const luaL_Reg functions[] = {
        {"find", pm_find}, {"match", pm_match_function}, {"gmatch", pm_gmatch}, {"gsub", pm_gsub}, {NULL, NULL}};
    for (int i = 0; functions[i].name; i++) {
        lua_pushcfunction(L, functions[i].func);
        lua_setfield(L, table, functions[i].name);
    }
}
