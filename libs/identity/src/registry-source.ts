// The certificate registry: SolidVM source of the system contracts deployed
// at genesis at REGISTRY_ADDRESS (docs/conventions.md "Accounts and identity").
// Every registered certificate is its own `Certificate` contract, created by
// the registry with `new`, so that cirrus indexes one row per certificate in
// the `Certificate` table with the columns the spec names.
//
// The X.509 work (parsing, signatures) is done by the node's built-ins
// (`parseCert`, `verifyCertSignedBy`; see ./hooks.ts); the rules (who is
// trusted, validity at the block's time, duplicates, revocation) are here,
// in the chain's state, so every node decides the same.

/** Address of the registry on the main chain. */
export const REGISTRY_ADDRESS = '0000000000000000000000000000000000000509';
export const REGISTRY_CONTRACT = 'CertificateRegistry';
export const CERTIFICATE_CONTRACT = 'Certificate';

export const REGISTRY_SOURCE = `pragma solidvm 3.4;

contract Certificate {
    // the registry lives at a fixed address (its genesis creation moves it there)
    address constant REGISTRY = 0x0000000000000000000000000000000000000509;
    address public userAddress;
    string public commonName;
    string public organization;
    string public organizationalUnit;
    string public country;
    string public publicKey;
    string public certificateString;
    address public parent;
    string public serialNumber;
    uint public notBefore;
    uint public expirationDate;
    bool public isCa;
    bool public isRoot;
    bool public isValid;

    constructor(string _certificateString, address _parent, bool _isRoot) {
        mapping(string => string) c = parseCert(_certificateString);
        userAddress = address(c["userAddress"]);
        commonName = c["commonName"];
        organization = c["organization"];
        organizationalUnit = c["organizationalUnit"];
        country = c["country"];
        publicKey = c["publicKey"];
        certificateString = c["certificateString"];
        serialNumber = c["serialNumber"];
        notBefore = uint(c["notBefore"], 10);
        expirationDate = uint(c["notAfter"], 10);
        isCa = c["isCa"] == "true";
        parent = _parent;
        isRoot = _isRoot;
        isValid = true;
    }

    function revoke() public {
        require(msg.sender == REGISTRY, "only the certificate registry revokes a certificate");
        isValid = false;
    }

    function validAt(uint t) public view returns (bool) {
        return isValid && notBefore <= t && t <= expirationDate;
    }
}

// The network's validator set (./validator-set.ts), which says who votes
// on the trusted roots; a lone node's main chain has none.
interface Validators {
    function epoch() external view returns (uint);
    function isOrganization(string organization) external view returns (bool);
    function organizationCount() external view returns (uint);
}

contract CertificateRegistry {
    address constant VALIDATOR_SET = 0x0000000000000000000000000000000000000200;
    // a user's address -> its Certificate contract (the latest registered)
    mapping(address => address) certificates;
    // Certificate contracts that may issue: the trusted roots, then registered CA certificates
    address[] authorities;
    // "<issuer address>:<serial>" of every certificate ever registered, revoked ones included
    mapping(string => bool) seen;
    uint public certificateCount;
    // votes on trusted roots: a proposal's votes count while neither the
    // validator set nor the roots changed since the first of them ("<set epoch>:<root changes>")
    uint public rootChanges;
    mapping(string => string) rootVotesMark;
    mapping(string => uint) rootVotes;
    mapping(string => mapping(string => string)) rootVotedIn;

    event CertificateRegistered(address userAddress, string commonName, string organization, string organizationalUnit, address certificate);
    event CertificateRevoked(address userAddress, address certificate);
    event TrustedRootVote(string proposal, string organization, uint votes, uint needed);
    event TrustedRootAdded(address userAddress, string commonName, string organization, address certificate);
    event TrustedRootRemoved(address userAddress, string organization, address certificate);

    constructor(string[] roots) {
        for (uint i = 0; i < roots.length; i++) {
            mapping(string => string) c = parseCert(roots[i]);
            require(c["error"] == "", "trusted root " + string(i) + ": " + c["error"]);
            require(c["isCa"] == "true", "trusted root " + string(i) + " is not a CA certificate");
            address user = address(c["userAddress"]);
            Certificate cert = new Certificate(roots[i], user, true);
            certificates[user] = address(cert);
            seen[string(user) + ":" + c["serialNumber"]] = true;
            authorities.push(address(cert));
            certificateCount++;
            emit CertificateRegistered(user, c["commonName"], c["organization"], c["organizationalUnit"], address(cert));
        }
    }

    // Registers a certificate for the account of its public key, sent by that
    // account or by the certificate's issuer (a node enrolling its users);
    // a trusted root or a registered CA must have issued it.
    function registerCertificate(string newCertificateString) public returns (address) {
        mapping(string => string) c = parseCert(newCertificateString);
        require(c["error"] == "", "not a valid certificate: " + c["error"]);
        address user = address(c["userAddress"]);
        require(uint(c["notAfter"], 10) >= block.timestamp, "the certificate has expired");
        require(uint(c["notBefore"], 10) <= block.timestamp, "the certificate is not valid yet");

        address issuer = address(0);
        bool nameMatched = false;
        for (uint i = 0; i < authorities.length && issuer == address(0); i++) {
            Certificate a = Certificate(authorities[i]);
            if (!a.validAt(block.timestamp)) continue;
            if (a.commonName() == c["issuerCommonName"] && a.organization() == c["issuerOrganization"]) nameMatched = true;
            if (verifyCertSignedBy(newCertificateString, a.certificateString())) issuer = a.userAddress();
        }
        require(issuer != address(0), nameMatched
            ? "the certificate's signature does not verify under its issuer's key"
            : "the certificate is not issued by a trusted root or a registered CA: its issuer CN=" + c["issuerCommonName"] + ", O=" + c["issuerOrganization"] + " is unknown");

        require(msg.sender == user || msg.sender == issuer, "the certificate is for the key of " + string(user) + ", not the sender's: only that account or the certificate's issuer registers it");
        string key = string(issuer) + ":" + c["serialNumber"];
        require(!seen[key], "this certificate was registered before");
        address current = certificates[user];
        if (current != address(0)) {
            require(!Certificate(current).validAt(block.timestamp), "address " + string(user) + " already has a valid certificate: revoke it first");
        }

        Certificate cert = new Certificate(newCertificateString, issuer, false);
        certificates[user] = address(cert);
        seen[key] = true;
        if (c["isCa"] == "true") authorities.push(address(cert));
        certificateCount++;
        emit CertificateRegistered(user, c["commonName"], c["organization"], c["organizationalUnit"], address(cert));
        return address(cert);
    }

    // The certificate's own address or its issuer may revoke it; a revoked
    // certificate never counts again (not even registered anew).
    function revokeCertificate(address userAddress) public {
        address current = certificates[userAddress];
        require(current != address(0), "address " + string(userAddress) + " has no certificate");
        Certificate cert = Certificate(current);
        require(cert.isValid(), "the certificate of " + string(userAddress) + " is already revoked");
        require(msg.sender == userAddress || msg.sender == cert.parent(), "only the certificate's owner or its issuer may revoke it");
        cert.revoke();
        emit CertificateRevoked(userAddress, current);
    }

    // An organization joins the network: a vote, by one of the validators'
    // organizations, to trust the CA certificate of another as a root. The
    // vote that makes a majority of them registers it; true then.
    function voteAddTrustedRoot(string rootCertificate) public returns (bool) {
        mapping(string => string) c = parseCert(rootCertificate);
        require(c["error"] == "", "not a valid certificate: " + c["error"]);
        require(c["isCa"] == "true", "a trusted root is a CA certificate");
        require(uint(c["notAfter"], 10) >= block.timestamp, "the certificate has expired");
        address user = address(c["userAddress"]);
        address current = certificates[user];
        require(current == address(0) || !Certificate(current).validAt(block.timestamp), "address " + string(user) + " already has a valid certificate");
        string key = string(user) + ":" + c["serialNumber"];
        require(!seen[key], "this certificate was registered before");
        if (!voteOnRoots(string.concat("add|", key))) return false;

        Certificate cert = new Certificate(rootCertificate, user, true);
        certificates[user] = address(cert);
        seen[key] = true;
        authorities.push(address(cert));
        certificateCount++;
        rootChanges++;
        emit CertificateRegistered(user, c["commonName"], c["organization"], c["organizationalUnit"], address(cert));
        emit TrustedRootAdded(user, c["commonName"], c["organization"], address(cert));
        return true;
    }

    // An organization leaves: a vote to stop trusting a root (by its
    // address). Decided, the root is revoked, and with it every certificate
    // it issued stops being anyone's identity. The organization's validators
    // are voted out first.
    function voteRemoveTrustedRoot(address rootAddress) public returns (bool) {
        address current = certificates[rootAddress];
        require(current != address(0) && Certificate(current).isRoot(), "address " + string(rootAddress) + " is not a trusted root");
        Certificate cert = Certificate(current);
        require(cert.isValid(), "the trusted root " + string(rootAddress) + " is already removed");
        require(!Validators(VALIDATOR_SET).isOrganization(cert.organization()), "organization " + cert.organization() + " still has validators: vote them out first");
        if (!voteOnRoots(string.concat("remove|", string(rootAddress)))) return false;
        cert.revoke();
        rootChanges++;
        emit CertificateRevoked(rootAddress, current);
        emit TrustedRootRemoved(rootAddress, cert.organization(), current);
        return true;
    }

    // One vote per organization, only the validators' organizations; true
    // when more than half of them voted.
    function voteOnRoots(string proposal) internal returns (bool) {
        Validators validators = Validators(VALIDATOR_SET);
        string organization = organizationOf(msg.sender);
        require(validators.isOrganization(organization), "only the validators' organizations vote on trusted roots, by a registered certificate of theirs");
        string mark = string(validators.epoch()) + ":" + string(rootChanges);
        if (rootVotesMark[proposal] != mark) {
            rootVotesMark[proposal] = mark;
            rootVotes[proposal] = 0;
        }
        require(rootVotedIn[proposal][organization] != mark, "this organization voted for it already");
        rootVotedIn[proposal][organization] = mark;
        rootVotes[proposal] += 1;
        uint needed = validators.organizationCount() / 2 + 1;
        emit TrustedRootVote(proposal, organization, rootVotes[proposal], needed);
        return rootVotes[proposal] >= needed;
    }

    // The organization of an address's valid certificate whose issuers, up to
    // their root, are all valid too: what tx.organization says elsewhere
    // (calls into the registry carry no sender identity, so that the
    // certificates they create belong to no organization); "" if none.
    function organizationOf(address user) internal view returns (string) {
        address current = certificates[user];
        if (current == address(0) || !Certificate(current).validAt(block.timestamp)) return "";
        string organization = Certificate(current).organization();
        for (uint depth = 0; depth < 8; depth++) {
            if (Certificate(current).isRoot()) return organization;
            current = certificates[Certificate(current).parent()];
            if (current == address(0) || !Certificate(current).validAt(block.timestamp)) return "";
        }
        return "";
    }

    // The Certificate contract registered for an address (the zero address if none).
    function getUserCert(address userAddress) public view returns (address) {
        return certificates[userAddress];
    }
}
`;
