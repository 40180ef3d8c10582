// The console's credential and its requests (publishing.md "Console" rule
// 1): the API key lives in sessionStorage only (never a cookie, the URL or
// localStorage) and goes out as `Authorization: Bearer`; a 401 or "Sign
// out" forgets it.

import { ApiFailure, failure } from "../shared/errors";

export { ApiFailure };

const KEY = "confer:console:key";

/** The key of this tab's session, if signed in. */
export function apiKey(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** Keeps `key` for this tab. */
export function signIn(key: string): void {
  sessionStorage.setItem(KEY, key);
}

/** Forgets the key, then shows the sign-in form. */
export function signOut(): void {
  sessionStorage.removeItem(KEY);
  window.dispatchEvent(new Event("confer:signed-out"));
}

/** `fetch` of an API path with the key; a refusal is thrown as `ApiFailure`
 * unless its status is in `allow`. */
export async function request(path: string, init: RequestInit = {}, allow: number[] = []): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${apiKey() ?? ""}`);
  if (init.body && !headers.has("content-type")) headers.set("content-type", "application/json");
  const response = await fetch(path, { ...init, headers, credentials: "omit" });
  if (response.status === 401) {
    const refused = await failure(response);
    signOut();
    throw refused;
  }
  if (response.ok || allow.includes(response.status)) return response;
  throw await failure(response);
}

/** The JSON answer of a GET. */
export async function get<T>(path: string): Promise<T> {
  return (await (await request(path)).json()) as T;
}

/** The JSON answer of a write with a JSON body. */
export async function send<T>(method: string, path: string, body: unknown): Promise<T> {
  return (await (await request(path, { method, body: JSON.stringify(body) })).json()) as T;
}

/** The message of a failed request, for the status line. */
export function explain(error: unknown): string {
  if (error instanceof ApiFailure) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
