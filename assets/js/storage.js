/*
 * storage.js — the three sessionStorage keys the page keeps, behind one getter and
 * one setter each (the kernel's keeper: with storage disabled they live in memory).
 */

import { keeper } from "/kernel/js/storage.js";

const STORE_TOKEN = "noitu.token";
const STORE_SESSION = "noitu.session";
const STORE_DIFFICULTY = "noitu.difficulty";

const store = keeper(() => window.sessionStorage);

export const storedToken = () => store.read(STORE_TOKEN);
export const storeToken = (token) => store.write(STORE_TOKEN, token);
export const storedSession = () => store.read(STORE_SESSION);
export const storeSession = (session) => store.write(STORE_SESSION, session);
export const storedDifficulty = () => store.read(STORE_DIFFICULTY);
export const storeDifficulty = (difficulty) => store.write(STORE_DIFFICULTY, difficulty);
