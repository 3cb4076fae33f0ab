#ifndef SONGBOX_LUASHIM_INTERNAL_H
#define SONGBOX_LUASHIM_INTERNAL_H
// Between the shim's C files; not part of the module Swift imports.
#include "luashim.h"

// Every C file of the shim includes this first: a warning in songbox's C is a build error,
// without unsafe flags in Package.swift.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"

/// Charges `count` steps of a C loop to the instruction budget; raises the stop error when it is
/// exhausted. Only from C functions called by Lua.
void songbox_charge(lua_State *L, long count);

/// Sets find, match, gmatch and gsub in the table at `table` (the sandbox's `string`) to the
/// pattern functions of luapattern.c, which count their matching steps and charge them.
void songbox_install_patterns(lua_State *L, int table);

// The state behind `songbox_state *` (luashim.h), shared by the shim's files.
struct songbox_state {
    lua_State *L;
    // Memory cap (custom allocator).
    size_t memory_used, memory_limit;
    int memory_exceeded;
    long refusals;  // allocations refused in the current entry call
    int calls;      // songbox_call frames running: a host function may call back into the state
    // The last refused request: Lua retries a failed allocation once after an emergency full
    // collection; the cap is exceeded only when that retry is refused too.
    const void *refused_block; size_t refused_old, refused_new;
    // Instruction budget (count hook), per entry call.
    int64_t instructions_used, instruction_limit;
    int hook_interval;
    int stop;  // SONGBOX_STOP_*: once set, the state runs no more Lua code
    char stop_location[LUA_IDSIZE + 24];
    // A traceback taken where the memory cap refused (Lua calls no message handler for a
    // memory error, so this is the only one there can be).
    char stop_traceback[1024];
    // Bridge to Swift.
    songbox_dispatch_fn dispatch;
    songbox_output_fn output;
    void *context;
    char *buffer; size_t buffer_length, buffer_capacity;
    long imbalances;
};


// Registry keys.
static const char *const REAL_KEY = "songbox.real";         // proxy -> real table
static const char *const ROOT_KEY = "songbox.root";         // the real `songbox` table
static const char *const PENDING_KEY = "songbox.pending";   // a prelude value on its way in
static const char *const HOST_KEY = "songbox.host";         // prelude functions the host calls
static const char *const PATHS_KEY = "songbox.module_paths";  // folders `require` searches

/// The songbox state that owns `L` (its allocator's user data).
static inline songbox_state *sb_get(lua_State *L) {
    void *ud = NULL;
    (void)lua_getallocf(L, &ud);
    return (songbox_state *)ud;
}

/// `function` value of sb_register_p: the value stashed at PENDING_KEY (from the prelude).
#define SB_PENDING_VALUE (-2)

// Between the files (each defined in the one named):
void *sb_alloc(void *ud, void *block, size_t old_size, size_t new_size);  // luashim_memory.c
void sb_hook(lua_State *L, lua_Debug *ar);                              // luashim_budget.c
int sb_nearest_lua(lua_State *L, lua_Debug *ar);                        // luashim_budget.c
int sb_raise_stop(lua_State *L, songbox_state *S);                      // luashim_budget.c
void sb_charge(lua_State *L, lua_Integer count);                        // luashim_budget.c
void sb_push_buffer(lua_State *L, songbox_state *S, int count);         // luashim_values.c
int sb_trampoline(lua_State *L);                                        // luashim_bridge.c
int sb_register_p(lua_State *L);                                        // luashim_bridge.c
void sb_new_namespace(lua_State *L, const char *name);                  // luashim_bridge.c
void sb_real_of(lua_State *L, int index);                               // luashim_bridge.c
int sb_is_namespace(lua_State *L, int index);                           // luashim_sandbox.c
int sb_setup_p(lua_State *L);                                           // luashim_sandbox.c
int sb_panic(lua_State *L);                                             // luashim_sandbox.c
#endif
