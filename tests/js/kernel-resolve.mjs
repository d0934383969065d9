// The resolve hook kernel-paths.mjs registers: "/kernel/<path>" is assets/kernel/<path>.
const PREFIX = "/kernel/";
const KERNEL = new URL("../../assets/kernel/", import.meta.url);

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith(PREFIX)) {
    return nextResolve(new URL(specifier.slice(PREFIX.length), KERNEL).href, context);
  }
  return nextResolve(specifier, context);
}
