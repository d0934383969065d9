// Lets node import the pages' ES modules from assets/ as the browser does: a module
// imports the kernel by its URL path ("/kernel/js/dom.js"), which the server answers
// from assets/kernel/. Run the tests with `node --import ./tests/js/kernel-paths.mjs`.
import { register } from "node:module";

register("./kernel-resolve.mjs", import.meta.url);
