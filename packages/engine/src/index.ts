export * from './contract.js';
export * from './method-contract.js';
