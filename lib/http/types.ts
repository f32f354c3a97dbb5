/** The parts of an API Gateway HTTP API (payload format 2.0) event this service reads. */
export interface HttpApiEvent {
  readonly version?: string;
  /** `METHOD /path` of the matched route. */
  readonly routeKey?: string;
  readonly rawPath: string;
  readonly rawQueryString?: string;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly queryStringParameters?: Readonly<Record<string, string | undefined>>;
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
  readonly requestContext: {
    readonly requestId?: string;
    readonly http: { readonly method: string; readonly path?: string };
  };
}

/** The structured result an HTTP API Lambda integration returns. */
export interface HttpApiResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
}

/** The part of the Lambda context used here. */
export interface LambdaContext {
  readonly awsRequestId: string;
  readonly functionName?: string;
}
