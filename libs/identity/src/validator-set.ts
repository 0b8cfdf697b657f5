// The network's validators as main-chain state (docs/network.md "Validators
// by governance"): a SolidVM contract created at genesis with the genesis's
// validators, changed only by the votes of a majority of the validators'
// organizations. A voter's organization is its registered certificate's
// (`tx.organization`), so a vote is an organization's, by X.509 identity.
//
// The block service reads the set straight from the contract's storage after
// every block (readValidatorSet): a change takes effect at the block
// boundary after the vote that decided it, the same on every node.
import type { GenesisContract, Validator, WorldState } from '@platform/common';

/** Where a network's main genesis creates the validator set. */
export const VALIDATOR_SET_ADDRESS = '0000000000000000000000000000000000000200';
export const VALIDATOR_SET_CONTRACT = 'ValidatorSet';

export const VALIDATOR_SET_SOURCE = `
contract ValidatorSet {
  uint public count;
  mapping(uint => string) public nodeAt;
  mapping(uint => string) public organizationAt;
  mapping(uint => string) public addressAt;
  mapping(uint => string) public publicKeyAt;
  // moves at every change: votes cast before it do not count for a later proposal
  uint public epoch;
  mapping(string => uint) votesEpoch;
  mapping(string => uint) votes;
  mapping(string => mapping(string => uint)) votedIn;

  event ValidatorAdded(string node, string organization, string validator, string publicKey);
  event ValidatorRemoved(string node, string organization, string validator);
  event VoteCast(string proposal, string organization, uint votes, uint needed);

  constructor(string[] nodes, string[] organizations, string[] addresses, string[] publicKeys) {
    for (uint i = 0; i < nodes.length; i++) {
      append(nodes[i], organizations[i], addresses[i], publicKeys[i]);
    }
  }

  // an organization's vote to make a node a validator; true when it decided
  function voteAdd(string node, string organization, string validator, string publicKey) public returns (bool) {
    require(bytes(node).length > 0 && bytes(organization).length > 0, "a validator needs a node name and an organization");
    require(bytes(validator).length == 40, "a validator's address is 40 hex digits, no 0x");
    require(bytes(publicKey).length == 130, "a validator's public key is 130 hex digits, uncompressed");
    require(indexOfAddress(validator) == count, "already a validator");
    require(indexOfNode(node) == count, "a validator has this node name");
    if (!vote(string.concat("add|", node, "|", organization, "|", validator, "|", publicKey))) return false;
    append(node, organization, validator, publicKey);
    epoch += 1;
    emit ValidatorAdded(node, organization, validator, publicKey);
    return true;
  }

  // an organization's vote to take a validator out; true when it decided
  function voteRemove(string validator) public returns (bool) {
    uint i = indexOfAddress(validator);
    require(i < count, "not a validator");
    require(count > 1, "the last validator stays");
    if (!vote(string.concat("remove|", validator))) return false;
    emit ValidatorRemoved(nodeAt[i], organizationAt[i], validator);
    uint last = count - 1;
    nodeAt[i] = nodeAt[last];
    organizationAt[i] = organizationAt[last];
    addressAt[i] = addressAt[last];
    publicKeyAt[i] = publicKeyAt[last];
    nodeAt[last] = "";
    organizationAt[last] = "";
    addressAt[last] = "";
    publicKeyAt[last] = "";
    count = last;
    epoch += 1;
    return true;
  }

  function vote(string proposal) internal returns (bool) {
    string memory organization = tx.organization;
    require(isOrganization(organization), "only the validators' organizations vote, by a registered certificate of theirs");
    uint mark = epoch + 1;
    if (votesEpoch[proposal] != mark) {
      votesEpoch[proposal] = mark;
      votes[proposal] = 0;
    }
    require(votedIn[proposal][organization] != mark, "this organization voted for it already");
    votedIn[proposal][organization] = mark;
    votes[proposal] += 1;
    uint needed = organizationCount() / 2 + 1;
    emit VoteCast(proposal, organization, votes[proposal], needed);
    return votes[proposal] >= needed;
  }

  function append(string node, string organization, string validator, string publicKey) internal {
    nodeAt[count] = node;
    organizationAt[count] = organization;
    addressAt[count] = validator;
    publicKeyAt[count] = publicKey;
    count += 1;
  }

  function same(string a, string b) internal pure returns (bool) {
    return keccak256(bytes(a)) == keccak256(bytes(b));
  }

  function indexOfAddress(string validator) internal view returns (uint) {
    for (uint i = 0; i < count; i++) { if (same(addressAt[i], validator)) return i; }
    return count;
  }

  function indexOfNode(string node) internal view returns (uint) {
    for (uint i = 0; i < count; i++) { if (same(nodeAt[i], node)) return i; }
    return count;
  }

  function isOrganization(string organization) public view returns (bool) {
    for (uint i = 0; i < count; i++) { if (same(organizationAt[i], organization)) return true; }
    return false;
  }

  // the validators' distinct organizations: a majority of them decides
  function organizationCount() public view returns (uint) {
    uint n = 0;
    for (uint i = 0; i < count; i++) {
      bool seen = false;
      for (uint j = 0; j < i; j++) { if (same(organizationAt[j], organizationAt[i])) seen = true; }
      if (!seen) n += 1;
    }
    return n;
  }
}
`;

/** The validator set, created at genesis with the genesis's validators. */
export function validatorSetGenesisContract(validators: readonly Validator[]): GenesisContract {
  return {
    address: VALIDATOR_SET_ADDRESS,
    name: VALIDATOR_SET_CONTRACT,
    vm: 'SolidVM',
    src: VALIDATOR_SET_SOURCE,
    args: {
      nodes: validators.map((v) => v.node),
      organizations: validators.map((v) => v.organization),
      addresses: validators.map((v) => v.address),
      publicKeys: validators.map((v) => v.publicKey),
    },
  };
}

/**
 * The validators as the state holds them (SolidVM's storage paths, values as
 * text: test/validator-set.test.ts pins them against the contract as SolidVM
 * runs it); empty when the state has no validator set.
 */
export function readValidatorSet(state: Pick<WorldState, 'getStorage'>, address = VALIDATOR_SET_ADDRESS): Validator[] {
  const count = Number(state.getStorage(address, '.count') ?? '0');
  const out: Validator[] = [];
  for (let i = 0; i < count; i++) {
    const at = (field: string) => state.getStorage(address, `.${field}<${i}>`) ?? '';
    out.push({ node: at('nodeAt'), organization: at('organizationAt'), address: at('addressAt'), publicKey: at('publicKeyAt') });
  }
  return out;
}
