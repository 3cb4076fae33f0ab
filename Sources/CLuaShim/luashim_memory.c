// The memory cap: Lua allocates through sb_alloc, which refuses past the state's limit (after
// Lua's emergency collection) and records where the script was.
#include "luashim.h"
#include "luashim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// MARK: allocator

/// Records the running Lua function's file:line as where a limit was hit (main thread; it only
/// reads the call info, which the VM keeps current before any allocation). Up to Lua 5.4.4 a
/// growing stack is copied to a new block before the old one is freed, so the call info is valid
/// in the allocator; from 5.4.5 on its pointers are offsets meanwhile, so this is left out and
/// the error names the file without a line.
static void sb_record_location(songbox_state *S) {
#if LUA_VERSION_RELEASE_NUM > 50404
    (void)S;
    return;
#else
    lua_Debug ar;
    if (S->L == NULL) return;  // still inside lua_newstate
    S->stop_location[0] = 0;
    size_t used = (size_t)snprintf(S->stop_traceback, sizeof S->stop_traceback, "stack traceback:");
    // The innermost 16 levels: lua_getstack walks from the top each time, and a refusal in a
    // deep recursion must stay cheap.
    for (int level = 0; level < 16 && lua_getstack(S->L, level, &ar); level++) {
        if (!lua_getinfo(S->L, "Sl", &ar) || ar.currentline <= 0) continue;
        if (S->stop_location[0] == 0)
            snprintf(S->stop_location, sizeof S->stop_location, "%s:%d", ar.short_src, ar.currentline);
        if (used < sizeof S->stop_traceback) {
            int n = ar.what[0] == 'm'
                ? snprintf(S->stop_traceback + used, sizeof S->stop_traceback - used, "\n\t%s:%d: in main chunk",
                           ar.short_src, ar.currentline)
                : snprintf(S->stop_traceback + used, sizeof S->stop_traceback - used, "\n\t%s:%d: in function <%s:%d>",
                           ar.short_src, ar.currentline, ar.short_src, ar.linedefined);
            if (n > 0) used += (size_t)n;
        }
    }
#endif
}

void *sb_alloc(void *ud, void *block, size_t old_size, size_t new_size) {
    songbox_state *S = (songbox_state *)ud;
    size_t old = block ? old_size : 0;
    if (new_size == 0) {
        free(block);
        S->memory_used -= old;
        return NULL;
    }
    // Once stopped no script code runs; the error path (the message, its traceback) may go a
    // little past the cap, so a memory-limit error says where it came from like any other.
    size_t limit = S->memory_limit + (S->stop != SONGBOX_STOP_NONE ? (size_t)1 << 20 : 0);
    if (new_size > old && S->memory_used - old + new_size > limit) {
        S->refusals++;
        if (S->stop == SONGBOX_STOP_NONE) sb_record_location(S);
        if (block == S->refused_block && old_size == S->refused_old && new_size == S->refused_new)
            S->memory_exceeded = 1;  // refused again after the emergency collection
        S->refused_block = block; S->refused_old = old_size; S->refused_new = new_size;
        return NULL;
    }
    void *result = realloc(block, new_size);
    if (result == NULL) return NULL;
    // (Shrinking, as the emergency collection does, does not make the last refusal moot.)
    if (new_size > old) { S->refused_block = NULL; S->refused_old = 0; S->refused_new = 0; }
    S->memory_used = S->memory_used - old + new_size;
    return result;
}
