import { DeploymentRouter } from '../deployment-router';
import { badRequest, keyModelAccessDenied, unknownModel } from '../gateway-errors';
import { GatewayCaller, mayUseAlias } from '../keys/key-verifier';

/** The alias a call names in `model`, checked: present, allowed to the caller, configured. */
export function requestedAlias(body: Record<string, unknown>, caller: GatewayCaller, deployments: DeploymentRouter): string {
  const alias = body['model'];
  if (typeof alias !== 'string' || alias === '') throw badRequest('model is required.', 'model');
  // Before the existence check, so that a restricted key learns nothing of other aliases.
  if (!mayUseAlias(caller, alias)) throw keyModelAccessDenied(alias);
  if (!deployments.has(alias)) {
    const unserved = deployments.unservedReason(alias);
    if (unserved !== undefined) throw badRequest(`The model "${alias}" cannot be called: ${unserved}.`, 'model');
    throw unknownModel(alias);
  }
  return alias;
}
