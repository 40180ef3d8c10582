// The visitor's session: the token held in memory only, minted when the
// visitor acts (or at load when a secret is stored), minted again on a 401
// or two minutes before it expires; and every request of the public chat
// API made with it.

import { failure } from "../shared/errors";
import type { PageStore } from "../shared/store";

export { ApiFailure as ChatError } from "../shared/errors";

interface Minted {
  token: string;
  expires_in: number;
  visitor_secret: string;
}

/** The public chat API of one slug, with the visitor's session. */
export class Session {
  private token: string | null = null;
  private renewAt = 0;
  private userToken: string | null = null;

  constructor(
    readonly base: string,
    private readonly store: PageStore,
    private readonly origin: string | null,
  ) {}

  /** Whether a secret from an earlier visit is kept. */
  hasSecret(): boolean {
    return this.store.get("secret") !== null;
  }

  /** Uses the host's signed identity from now on (a new session). */
  identify(userToken: string): void {
    this.userToken = userToken;
    this.token = null;
  }

  private async mint(): Promise<string> {
    const body: Record<string, string> = {};
    const secret = this.store.get("secret");
    if (secret) body.visitorSecret = secret;
    if (this.userToken) body.userToken = this.userToken;
    if (this.origin) body.origin = this.origin;
    const response = await fetch(`${this.base}/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw await failure(response);
    const minted = (await response.json()) as Minted;
    this.store.set("secret", minted.visitor_secret);
    this.token = minted.token;
    this.renewAt = Date.now() + Math.max(0, minted.expires_in - 120) * 1000;
    return minted.token;
  }

  /** A valid token, minting one if needed. */
  async ensure(): Promise<string> {
    if (this.token && Date.now() < this.renewAt) return this.token;
    return this.mint();
  }

  /** `fetch` of `path` under the chat's prefix with the token; one retry
   * with a new token after a 401. Errors other than `allow` are thrown. */
  async request(path: string, init: RequestInit = {}, allow: number[] = []): Promise<Response> {
    for (let attempt = 0; ; attempt += 1) {
      const token = await this.ensure();
      const headers = new Headers(init.headers);
      headers.set("authorization", `Bearer ${token}`);
      if (init.body && !headers.has("content-type")) headers.set("content-type", "application/json");
      const response = await fetch(`${this.base}${path}`, { ...init, headers });
      if (response.status === 401 && attempt === 0) {
        this.token = null;
        continue;
      }
      if (response.ok || allow.includes(response.status)) return response;
      throw await failure(response);
    }
  }

  /** The JSON of a request. */
  async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const response = await this.request(path, init);
    return (await response.json()) as T;
  }
}
