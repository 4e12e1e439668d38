// What a key derives from a JWK object (an imported CryptoKey, a node KeyObject) is worth keeping while that same
// object is in use: the rows and profiles that hold JWKs are cached objects, so the import runs once per cached
// copy instead of on every request, and it is forgotten with them (a WeakMap: no bound to state, nothing stale —
// a new row or profile is a new object). A failed computation is not kept.

export const memoByObject = <K extends object, V>(compute: (key: K) => V): ((key: K) => V) => {
  const kept = new WeakMap<K, V>();
  return (key) => {
    if (kept.has(key)) return kept.get(key)!;
    const value = compute(key);
    kept.set(key, value);
    if (value instanceof Promise) value.catch(() => kept.delete(key));
    return value;
  };
};
