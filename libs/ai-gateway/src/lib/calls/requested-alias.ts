import { DeploymentRouter } from '../deployment-router';
import { badRequest, keyModelAccessDenied, unknownModel } from '../gateway-errors';
import { GatewayCaller, mayUseAlias } from '../keys/key-verifier';

/** A key may call an alias it is allowed, or a model_group_alias name of a group it is allowed (both reach the same deployments). */
export function mayCallAlias(caller: GatewayCaller, alias: string, deployments: DeploymentRouter): boolean {
  if (mayUseAlias(caller, alias)) return true;
  const target = deployments.groupAliasTarget(alias);
  return target !== undefined && mayUseAlias(caller, target);
}

/** The alias a call names in `model`, checked: present, allowed to the caller, configured. */
export function requestedAlias(body: Record<string, unknown>, caller: GatewayCaller, deployments: DeploymentRouter): string {
  const alias = body['model'];
  if (typeof alias !== 'string' || alias === '') throw badRequest('model is required.', 'model');
  // Before the existence check, so that a restricted key learns nothing of other aliases.
  if (!mayCallAlias(caller, alias, deployments)) throw keyModelAccessDenied(alias);
  if (!deployments.has(alias)) {
    const unserved = deployments.unservedReason(alias);
    if (unserved !== undefined) throw badRequest(`The model "${alias}" cannot be called: ${unserved}.`, 'model');
    throw unknownModel(alias);
  }
  return alias;
}
