// @arbor/contract: what a product implements to be managed by the Arbor control plane.
export * from './permissions';
export * from './client';
export * from './sync';
export * from './nest';
export * from './dashboard';
export * from './errors';
export * from './identity';
