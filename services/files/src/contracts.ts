// The file application's contracts (spec "Reference file-application
// contracts" and the FileManager rules), SolidVM, in one source: every
// contract of a SolidVM source shares its code hash, so a file's manager and
// everything it created carry the hash the service checks (records.ts).
//
// Where the spec is silent:
// - The constructor runs `initialize`, so a file is one transaction and its
//   caller — the uploader — is the owner (rule 1).
// - `initialize` shares the file with its owner: the owner is the first
//   member, and stays one after a transfer until the new owner removes them.
// - `share` returns 0 unless the owner calls; versions and attestations are
//   the members' (`isMember` replays the memberships); `attest` returns 0 for a
//   version that does not exist or a caller who is not a member.
// - `ExternalFile` keeps the manager that created it (`manager`): only it may
//   record an attestation, else anyone could attest in another's name.
// - The token grant of `share` (rule 3) comes from the manager's balance,
//   which the service funds with the share transaction's value when gas is
//   on; with gas off no account holds tokens and nothing moves.

/** What `share` gives a member whose balance is 0: one token, enough for a member's transactions. */
export const MEMBER_GRANT = 10n ** 18n;

export const FILE_APP_SOURCE = `
contract Attestation {
  uint public version;
  string public fileKey;
  address public attestor;
  uint public timestamp;

  constructor(address _attestor, string _fileKey, uint _version) {
    attestor = _attestor;
    fileKey = _fileKey;
    version = _version;
    timestamp = now;
  }
}

contract ExternalFile {
  uint256 public version;
  uint256 public timestamp;
  string public fileKey;
  string public fileHash;
  string public comments;
  string public uri;
  address public uploadedBy;
  Attestation[] public attestations;
  address public manager;

  constructor(string _fileKey, string _fileHash, string _uri, string _comments, address _uploadedBy, uint256 _version) {
    fileKey = _fileKey;
    fileHash = _fileHash;
    uri = _uri;
    comments = _comments;
    uploadedBy = _uploadedBy;
    version = _version;
    timestamp = now;
    manager = msg.sender;
  }

  function attest(address _attestor) returns (uint) {
    if (msg.sender != manager) return 0;
    attestations.push(new Attestation(_attestor, fileKey, version));
    return 1;
  }
}

contract Membership {
  string public fileKey;
  string public action;
  address public member;
  uint public timestamp;

  constructor(address _member, string _action, string _fileKey) {
    member = _member;
    action = _action;
    fileKey = _fileKey;
    timestamp = now;
  }
}

contract FileManager {
  uint256 public numVersions;
  uint256 public createdAt;
  uint256 public lastActivityAt;
  string public fileKey;
  string public fileName;
  string public fileDescription;
  address public owner;
  bool public isInitialized;
  Membership[] public memberships;
  ExternalFile[] public fileVersions;

  event MemberAdded(address member, string enode);
  event MemberRemoved(address member);

  constructor(string _fileKey, string _fileName, string _fileDescription, string _comments, string _fileHash, string _uri) {
    initialize(_fileKey, _fileName, _fileDescription, _comments, _fileHash, _uri);
  }

  function initialize(string _fileKey, string _fileName, string _fileDescription, string _comments, string _fileHash, string _uri) returns (uint) {
    require(!isInitialized, "the file manager is initialized already");
    numVersions = 0;
    isInitialized = true;
    fileKey = _fileKey;
    fileName = _fileName;
    fileDescription = _fileDescription;
    owner = msg.sender;
    share(msg.sender, "");
    addFileVersion(_fileHash, _comments, _uri);
    createdAt = now;
    lastActivityAt = now;
    return 1;
  }

  function isMember(address _who) returns (bool) {
    if (_who == owner) return true;
    for (uint i = memberships.length; i > 0; i--) {
      Membership m = memberships[i - 1];
      if (m.member() == _who) return m.action() == "MEMBER_ADDED";
    }
    return false;
  }

  function addFileVersion(string _fileHash, string _comments, string _uri) returns (uint) {
    require(isMember(msg.sender), "only a member of the file adds versions");
    numVersions += 1;
    fileVersions.push(new ExternalFile(fileKey, _fileHash, _uri, _comments, msg.sender, numVersions));
    lastActivityAt = now;
    return numVersions;
  }

  function share(address member, string enode) payable returns (uint) {
    if (msg.sender != owner) return 0;
    emit MemberAdded(member, enode);
    memberships.push(new Membership(member, "MEMBER_ADDED", fileKey));
    if (member.balance == 0 && address(this).balance >= ${MEMBER_GRANT}) member.transfer(${MEMBER_GRANT});
    lastActivityAt = now;
    return 1;
  }

  function transferOwnership(address newOwner, string enode) payable returns (uint) {
    if (msg.sender != owner) return 0;
    if (share(newOwner, enode) == 0) return 0;
    owner = newOwner;
    lastActivityAt = now;
    return 1;
  }

  function remove(address member) returns (uint) {
    if (msg.sender != owner || member == owner) return 0;
    emit MemberRemoved(member);
    memberships.push(new Membership(member, "MEMBER_REMOVED", fileKey));
    lastActivityAt = now;
    return 1;
  }

  function attest(uint version) returns (uint) {
    if (version == 0 || version > numVersions || !isMember(msg.sender)) return 0;
    lastActivityAt = now;
    return fileVersions[version - 1].attest(msg.sender);
  }
}

contract UserManager {
  address public owner;

  constructor(address _owner) {
    owner = _owner;
  }
}

contract ExtFileStorageDapp {
  address public owner;
  UserManager public userManager;

  constructor() {
    owner = msg.sender;
    userManager = new UserManager(msg.sender);
  }
}
`;

/** The legacy file storage's contract (spec "File-storage contract (removed feature)"); its own source. */
export const EXTERNAL_STORAGE_SOURCE = `
contract ExternalStorage {
  string public fileKey;
  string public uri;
  string public host;
  string public fileHash;
  address[] public signers;
  uint public timeStamp;
  string public metadata;

  constructor(string _fileKey, string _uri, string _host, string _hash, string _metadata) {
    fileKey = _fileKey;
    uri = _uri;
    host = _host;
    fileHash = _hash;
    metadata = _metadata;
    signers.push(msg.sender);
    timeStamp = now;
  }

  function attest() returns (address[]) {
    signers.push(msg.sender);
    return signers;
  }
}
`;
