/*
 * storage.js — a page's few remembered strings, in window.localStorage or
 * window.sessionStorage. Storage may be disabled or full: a value the area refused
 * then lives in this page's memory only, and reads still answer ("" when unknown).
 */

// The reader and writer of one storage area; `area()` gives the Storage object (it
// may throw when the browser forbids storage).
export function keeper(area) {
  const refused = new Map(); // values the area would not keep
  return {
    read(key) {
      try {
        const value = area().getItem(key);
        if (value !== null) {
          return value;
        }
      } catch (e) {
        /* storage may be disabled; memory still works */
      }
      return refused.get(key) || "";
    },
    // An empty value forgets the key.
    write(key, value) {
      const text = value ? String(value) : "";
      try {
        if (text) {
          area().setItem(key, text);
        } else {
          area().removeItem(key);
        }
        refused.delete(key);
      } catch (e) {
        if (text) {
          refused.set(key, text);
        } else {
          refused.delete(key);
        }
      }
    }
  };
}
