// The SDK's errors (sdks.md "Client surface"): every non-2xx answer is a
// ConferError carrying the contract's `{error, detail}` body, the request id
// and `Retry-After`; a stream that lost its place is a StreamGapError; a
// connection that could not be made again is a ConferConnectionError.

/** A non-2xx answer from Confer. */
export class ConferError extends Error {
  /** The HTTP status (0 for a lost connection). */
  readonly status: number;
  /** The contract's error code (`NOT_FOUND`, `THREAD_BUSY`…). */
  readonly error: string;
  readonly detail: string;
  /** The answer's `X-Request-Id`, to quote to an operator. */
  readonly requestId: string | null;
  /** Seconds to wait before retrying, from `Retry-After`. */
  readonly retryAfter: number | null;
  /** The body as JSON, or as text when it was not JSON. */
  readonly body: unknown;

  constructor(
    status: number,
    error: string,
    detail: string,
    requestId: string | null = null,
    retryAfter: number | null = null,
    body: unknown = null,
  ) {
    super(`${status} ${error}: ${detail}`);
    this.name = new.target.name;
    this.status = status;
    this.error = error;
    this.detail = detail;
    this.requestId = requestId;
    this.retryAfter = retryAfter;
    this.body = body;
  }

  /** The error of one answer, whose body was already read as `body`
   * (parsed JSON, or text); a StreamGapError for `STREAM_GAP`. */
  static fromAnswer(status: number, headers: Headers, body: unknown): ConferError {
    let code = "UNKNOWN";
    let detail = "";
    if (body !== null && typeof body === "object") {
      const fields = body as { error?: unknown; detail?: unknown };
      code = typeof fields.error === "string" ? fields.error : code;
      detail = typeof fields.detail === "string" ? fields.detail : "";
    } else if (typeof body === "string") {
      detail = body;
    }
    const Kind = code === "STREAM_GAP" ? StreamGapError : ConferError;
    return new Kind(status, code, detail, headers.get("x-request-id"), retryAfter(headers), body);
  }

  /** Reads a non-2xx response's body and builds its error. */
  static async fromResponse(response: Response): Promise<ConferError> {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: kept as text.
    }
    return ConferError.fromAnswer(response.status, response.headers, body);
  }
}

/** A watched stream fell behind the frames the server keeps. */
export class StreamGapError extends ConferError {}

/** The connection was lost and could not be made again. */
export class ConferConnectionError extends ConferError {
  constructor(detail: string, cause?: unknown) {
    super(0, "CONNECTION_LOST", detail);
    if (cause !== undefined) {
      (this as { cause?: unknown }).cause = cause;
    }
  }
}

/** `Retry-After` in seconds (the delay form; Confer never sends a date). */
export function retryAfter(headers: Headers): number | null {
  const value = headers.get("retry-after");
  if (value === null) return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) ? Math.max(0, seconds) : null;
}
