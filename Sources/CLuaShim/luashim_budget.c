// The instruction budget: a count hook charges every VM instruction (and C loops charge their
// steps, songbox_charge); past the limit, or once stopped, every thread raises the stop error.
#include "luashim.h"
#include "luashim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// MARK: instruction budget

void sb_hook(lua_State *L, lua_Debug *ar);

/// The nearest Lua function on the stack (a frame with a current line): fills `ar`, returns 1;
/// 0 when there is none. What `FILE:LINE` names when a C function (pcall, error) is in between.
int sb_nearest_lua(lua_State *L, lua_Debug *ar) {
    for (int level = 1; lua_getstack(L, level, ar); level++)
        if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0) return 1;
    return 0;
}


/// Raises the stop error (only from C functions or the hook). The thread it is raised in then
/// raises again on every instruction: hooks are per thread in Lua 5.4, so each thread is made
/// to at its first contact with the stopped state (a hook firing, a resume, a bridge call).
int sb_raise_stop(lua_State *L, songbox_state *S) {
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    // lua_pushfstring, not luaL_error: the location is the one recorded when the limit was hit.
    if (S->stop == SONGBOX_STOP_MEMORY)
        lua_pushfstring(L, "%s: memory limit of %d MB exceeded", S->stop_location,
                        (int)(S->memory_limit / (1024 * 1024)));
    else
        lua_pushfstring(L, "%s: instruction limit of %I exceeded", S->stop_location,
                        (lua_Integer)S->instruction_limit);
    return lua_error(L);
}

/// Marks the state stopped: from now on the hook raises on every instruction, so no pcall,
/// coroutine or callback can catch the error and go on.
static void sb_stop(lua_State *L, songbox_state *S, int reason, lua_Debug *ar) {
    S->stop = reason;
    if (reason == SONGBOX_STOP_MEMORY && S->stop_location[0] != 0) ar = NULL;  // the allocator recorded it
    if (reason == SONGBOX_STOP_INSTRUCTIONS) S->stop_location[0] = 0;
    lua_Debug local;
    if (ar == NULL && reason != SONGBOX_STOP_MEMORY) {
        // The nearest Lua function: a charged C function may be called through pcall, say.
        if (sb_nearest_lua(L, &local) || lua_getstack(L, 1, &local)) ar = &local;
    }
    if (ar != NULL && lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        snprintf(S->stop_location, sizeof S->stop_location, "%s:%d", ar->short_src, ar->currentline);
    else if (ar != NULL)
        snprintf(S->stop_location, sizeof S->stop_location, "%s", ar->short_src);
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    lua_sethook(S->L, sb_hook, LUA_MASKCOUNT, 1);
}

void sb_hook(lua_State *L, lua_Debug *ar) {
    songbox_state *S = sb_get(L);
    if (S->stop == SONGBOX_STOP_NONE) {
        S->instructions_used += S->hook_interval;
        if (S->memory_exceeded) sb_stop(L, S, SONGBOX_STOP_MEMORY, ar);
        else if (S->instructions_used > S->instruction_limit) sb_stop(L, S, SONGBOX_STOP_INSTRUCTIONS, ar);
        else return;
    }
    sb_raise_stop(L, S);
}

/// Charges work a C library function does in a loop of its own (no Lua instructions run).
void sb_charge(lua_State *L, lua_Integer count) {
    songbox_state *S = sb_get(L);
    if (S->stop == SONGBOX_STOP_NONE) {
        if (count > 0) S->instructions_used += count;
        if (count < 0 || S->instructions_used > S->instruction_limit) sb_stop(L, S, SONGBOX_STOP_INSTRUCTIONS, NULL);
        else return;
    }
    sb_raise_stop(L, S);
}

void songbox_charge(lua_State *L, long count) { sb_charge(L, (lua_Integer)count); }
