import { ContractHttpError } from '../errors/contract-http-error';

export class InvalidProjectSyncRequest extends ContractHttpError {
  constructor(field: string, problem: string) {
    super(400, 'invalid_request', `Invalid ${field}: ${problem}`, { fields: { [field]: [problem] } });
  }
}

/** A valid token of another client: only the control plane's machine client sends project sync. */
export class NotTheControlPlane extends ContractHttpError {
  constructor(expectedClientId: string) {
    super(403, 'forbidden', `Only the control plane's machine client (${expectedClientId}) may send project sync.`);
  }
}

/** The product's handler threw: a 5xx, so that the control plane delivers the same slugs again later. */
export class ProjectSyncFailed extends ContractHttpError {
  constructor() {
    super(500, 'sync_handler_failed', 'The product could not apply the project sync; the control plane will retry.');
  }
}
