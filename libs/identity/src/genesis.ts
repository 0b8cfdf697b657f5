// The registry's entry in a main chain's genesis.
import type { GenesisContract } from '@platform/common';
import { REGISTRY_ADDRESS, REGISTRY_CONTRACT, REGISTRY_SOURCE } from './registry-source.js';

/**
 * The registry, created at genesis with the network's trusted roots (the
 * genesis's `trustedRoots`, each registered as a root `Certificate`).
 */
export function registryGenesisContract(trustedRoots: string[]): GenesisContract {
  return { address: REGISTRY_ADDRESS, name: REGISTRY_CONTRACT, vm: 'SolidVM', src: REGISTRY_SOURCE, args: { roots: trustedRoots } };
}
