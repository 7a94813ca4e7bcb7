/**
 * Errors with an HTTP status, as Kafka Connect's REST layer maps them to
 * `{ "error_code": <status>, "message": ... }` bodies: 404 for an unknown
 * connector or task, 409 for a name that exists (or a rebalance in
 * progress), 400 for a bad request or an invalid config.
 */
export class ConnectRestError extends Error {
  override readonly name = 'ConnectRestException';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (message: string): ConnectRestError => new ConnectRestError(404, message);
export const conflict = (message: string): ConnectRestError => new ConnectRestError(409, message);
export const badRequest = (message: string): ConnectRestError => new ConnectRestError(400, message);
export const connectorNotFound = (name: string): ConnectRestError => notFound(`Connector ${name} not found`);
