// The product integration contract. Today: the receiving side of project sync.
export * from './sync';
