// The contract's error body (`{error, detail}`) as an exception the pages
// show: the code, the detail and `Retry-After`.

/** An API refusal. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly retryAfter: number | null,
  ) {
    super(detail);
  }
}

/** The refusal `response` carries. */
export async function failure(response: Response): Promise<ApiFailure> {
  let code = "ERROR";
  let detail = response.statusText;
  try {
    const body = (await response.json()) as { error?: string; detail?: string };
    code = body.error ?? code;
    detail = body.detail ?? detail;
  } catch {
    // not JSON: keep the status text
  }
  const retry = Number(response.headers.get("retry-after"));
  return new ApiFailure(response.status, code, detail, Number.isFinite(retry) && retry > 0 ? retry : null);
}
