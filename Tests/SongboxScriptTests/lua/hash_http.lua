-- songbox.hash.md5 against RFC 1321's test suite (and bytes that are not UTF-8); songbox.http
-- absent from a state no grant was given, present with `request` once one was (`...` says which).
local granted = ...
local md5 = songbox.hash.md5
local vectors = {
  [""] = "d41d8cd98f00b204e9800998ecf8427e",
  ["a"] = "0cc175b9c0f1b6a831c399e269772661",
  ["abc"] = "900150983cd24fb0d6963f7d28e17f72",
  ["message digest"] = "f96b697d7cb7938d525a2f31aaf161d0",
  ["abcdefghijklmnopqrstuvwxyz"] = "c3fcd3d76192e4007dfb496cca67e13b",
  ["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"] = "d174ab98d277d9f5a5611c2c9f419d9f",
  [("1234567890"):rep(8)] = "57edf4a22be3c955ac49da2e2107b67a",
  ["\255\0\254"] = "13a18f27d9e54107c1d22c7d67f55018",
}
for text, digest in pairs(vectors) do
  local got = md5(text)
  assert(got == digest, ("md5(%q) = %s, expected %s"):format(text, got, digest))
end
assert(not pcall(md5, {}), "a table is refused")
local ok, err = pcall(md5)
assert(not ok and err:find("bad argument #1", 1, true), err)
if granted then
  assert(type(songbox.http) == "table" and type(songbox.http.request) == "function")
  local ok2, err2 = pcall(songbox.http.request, { url = "https://example.org", max_body = -1 })
  assert(not ok2 and err2:find("max_body", 1, true), err2)
  assert(not pcall(songbox.http.request, "https://example.org"), "a string is not the options table")
else
  assert(songbox.http == nil, "no grant, no songbox.http")
end
return "ok"
