/** A call to the control plane that did not give the answer asked for. Never carries a token. */
export class ControlPlaneError extends Error {
  constructor(
    message: string,
    /** The HTTP status, when the control plane answered. */
    readonly status?: number,
    /** The `error.code` of the control plane's answer, when it sent one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 403: this client may not read that (a person's permissions of someone else, repositories without a machine token…). */
export class ControlPlaneForbiddenError extends ControlPlaneError {}

/** 404: an unknown user, subject or project. */
export class ControlPlaneNotFoundError extends ControlPlaneError {}

/** The control plane could not be reached, timed out, or answered 5xx; or our token could not be obtained. */
export class ControlPlaneUnavailableError extends ControlPlaneError {}
