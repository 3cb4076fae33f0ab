// Values that cross from Swift: the records Swift writes into the state's buffer, pushed as Lua
// values (tables, strings, numbers), and the buffer itself.
#include "luashim.h"
#include "luashim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// MARK: values from the buffer

static uint32_t sb_read32(const char **p) { uint32_t v; memcpy(&v, *p, 4); *p += 4; return v; }

static void sb_push_records(lua_State *L, const char **p, int depth);

/// Pushes one value decoded from the buffer (Swift encoded it; lengths are trusted).
static void sb_push_value(lua_State *L, const char **p, int depth) {
    luaL_checkstack(L, 3, "value nesting too deep");
    char tag = **p; (*p)++;
    switch (tag) {
    case SONGBOX_TAG_NIL: lua_pushnil(L); break;
    case SONGBOX_TAG_TRUE: lua_pushboolean(L, 1); break;
    case SONGBOX_TAG_FALSE: lua_pushboolean(L, 0); break;
    case SONGBOX_TAG_INTEGER: { int64_t v; memcpy(&v, *p, 8); *p += 8; lua_pushinteger(L, (lua_Integer)v); break; }
    case SONGBOX_TAG_NUMBER: { double v; memcpy(&v, *p, 8); *p += 8; lua_pushnumber(L, (lua_Number)v); break; }
    case SONGBOX_TAG_STRING: { uint32_t n = sb_read32(p); lua_pushlstring(L, *p, n); *p += n; break; }
    case SONGBOX_TAG_ARRAY: {
        uint32_t n = sb_read32(p);
        lua_createtable(L, (int)n, 0);
        for (uint32_t i = 1; i <= n; i++) { sb_push_value(L, p, depth + 1); lua_rawseti(L, -2, (lua_Integer)i); }
        break;
    }
    case SONGBOX_TAG_TABLE: {
        uint32_t n = sb_read32(p);
        lua_createtable(L, 0, (int)n);
        for (uint32_t i = 0; i < n; i++) {
            sb_push_value(L, p, depth + 1);  // key
            sb_push_value(L, p, depth + 1);  // value
            lua_rawset(L, -3);
        }
        break;
    }
    case SONGBOX_TAG_RECORDS: sb_push_records(L, p, depth); break;
    default: luaL_error(L, "songbox internal error: bad value tag %d", (int)tag);
    }
}

/// Pushes a SONGBOX_TAG_RECORDS value (the tag read already): the keys are pushed once, below
/// the array, and each table takes them with lua_pushvalue, so no key string is made again; each
/// table is created with room for exactly its fields. Leaves only the array on the stack.
static void sb_push_records(lua_State *L, const char **p, int depth) {
    uint32_t key_count = sb_read32(p);
    luaL_checkstack(L, (int)key_count + 4, "too many record keys");
    int keys = lua_gettop(L) + 1;  // key i is at keys + i
    for (uint32_t i = 0; i < key_count; i++) {
        uint32_t n = sb_read32(p);
        lua_pushlstring(L, *p, n);
        *p += n;
    }
    uint32_t count = sb_read32(p);
    lua_createtable(L, (int)count, 0);
    for (uint32_t r = 1; r <= count; r++) {
        int fields = (unsigned char)*(*p)++;
        lua_createtable(L, 0, fields);
        for (int f = 0; f < fields; f++) {
            uint32_t key = (unsigned char)*(*p)++;
            if (key >= key_count) luaL_error(L, "songbox internal error: bad record key %d", (int)key);
            lua_pushvalue(L, keys + (int)key);
            char tag = **p;
            switch (tag) {  // the scalars records hold, inline; anything else as any value
            case SONGBOX_TAG_STRING: { (*p)++; uint32_t n = sb_read32(p); lua_pushlstring(L, *p, n); *p += n; break; }
            case SONGBOX_TAG_INTEGER: { int64_t v; memcpy(&v, *p + 1, 8); *p += 9; lua_pushinteger(L, (lua_Integer)v); break; }
            case SONGBOX_TAG_NUMBER: { double v; memcpy(&v, *p + 1, 8); *p += 9; lua_pushnumber(L, (lua_Number)v); break; }
            case SONGBOX_TAG_TRUE: (*p)++; lua_pushboolean(L, 1); break;
            case SONGBOX_TAG_FALSE: (*p)++; lua_pushboolean(L, 0); break;
            default: sb_push_value(L, p, depth + 1);
            }
            lua_rawset(L, -3);
        }
        lua_rawseti(L, -2, (lua_Integer)r);
    }
    lua_rotate(L, keys, 1);  // the array where the first key was
    lua_settop(L, keys);
}

/// Pushes `count` values from the buffer. Only from C, under protection.
void sb_push_buffer(lua_State *L, songbox_state *S, int count) {
    const char *p = S->buffer;
    luaL_checkstack(L, count, "too many results");
    for (int i = 0; i < count; i++) sb_push_value(L, &p, 0);
}

void songbox_buffer_reset(songbox_state *S) { S->buffer_length = 0; }

int songbox_buffer_append(songbox_state *S, const void *bytes, size_t length) {
    if (S->buffer_length + length > S->buffer_capacity) {
        size_t capacity = S->buffer_capacity ? S->buffer_capacity : 256;
        while (capacity < S->buffer_length + length) capacity *= 2;
        char *grown = (char *)realloc(S->buffer, capacity);
        if (grown == NULL) return 0;
        S->buffer = grown;
        S->buffer_capacity = capacity;
    }
    memcpy(S->buffer + S->buffer_length, bytes, length);
    S->buffer_length += length;
    return 1;
}

size_t songbox_buffer_length(songbox_state *S) { return S->buffer_length; }
