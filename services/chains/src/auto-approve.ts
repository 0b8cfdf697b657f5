// The spec's example governance contract: every function only emits the
// event of its name, so a member's proposal takes effect at once (the
// membership events are applied as soon as their block is). A chain that
// wants approval rules puts them in front of the emits.
export const AUTO_APPROVE_SOURCE = `
contract AutoApprove {
  event OrgAdded(string orgName);
  event OrgUnitAdded(string orgName, string orgUnit);
  event CommonNameAdded(string orgName, string orgUnit, string commonName);
  event OrgRemoved(string orgName);
  event OrgUnitRemoved(string orgName, string orgUnit);
  event CommonNameRemoved(string orgName, string orgUnit, string commonName);
  constructor() {}
  function addOrg(string _orgName) public { emit OrgAdded(_orgName); }
  function addOrgUnit(string _orgName, string _orgUnit) public { emit OrgUnitAdded(_orgName, _orgUnit); }
  function addCommonName(string _orgName, string _orgUnit, string _commonName) public { emit CommonNameAdded(_orgName, _orgUnit, _commonName); }
  function removeOrg(string _orgName) public { emit OrgRemoved(_orgName); }
  function removeOrgUnit(string _orgName, string _orgUnit) public { emit OrgUnitRemoved(_orgName, _orgUnit); }
  function removeCommonName(string _orgName, string _orgUnit, string _commonName) public { emit CommonNameRemoved(_orgName, _orgUnit, _commonName); }
}`;
