// Test contracts beyond the token (helpers.ts).

export const MATH = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Math {
    uint8 public small = 200;
    function add(uint8 a, uint8 b) public pure returns (uint8) { return a + b; }
    function div(uint256 a, uint256 b) public pure returns (uint256) { return a / b; }
    function bump(uint8 by) public returns (uint8) { small += by; return small; }
    function check(uint256 x) public pure { assert(x != 13); }
    function bare() public pure { revert(); }
}
`;

export const FACTORY = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Child {
    uint256 public immutable seed;
    address public parent;
    event Born(uint256 seed);
    constructor(uint256 s) { seed = s; parent = msg.sender; emit Born(s); }
    function twice() public view returns (uint256) { return seed * 2; }
}
contract Factory {
    Child public first;
    Child[] public kids;
    constructor() { first = new Child(1); }
    function make(uint256 s) public returns (address) { Child c = new Child(s); kids.push(c); return address(c); }
    function count() public view returns (uint256) { return kids.length; }
}
`;

export const VAULT = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Vault {
    mapping(address => uint256) public deposits;
    constructor() payable {}
    function deposit() public payable { deposits[msg.sender] += msg.value; }
    function withdraw(uint256 amount) public {
        deposits[msg.sender] -= amount;
        payable(msg.sender).transfer(amount);
    }
    function held() public view returns (uint256) { return address(this).balance; }
    function notPayable() public {}
}
`;

export const SHAPES = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Shapes {
    enum Color { Red, Green, Blue }
    struct Point { int256 x; int256 y; }
    Color public color;
    string public note;
    bytes32 public tag;
    uint16 public packedA;
    bool public packedB;
    int8 public packedC = -3;

    function paint(Color c) public returns (Color) { color = c; return c; }
    function sum(Point[] memory ps) public pure returns (Point memory total) {
        for (uint i = 0; i < ps.length; i++) { total.x += ps[i].x; total.y += ps[i].y; }
    }
    function seq(uint256 n) public pure returns (uint256[] memory out, string memory label) {
        out = new uint256[](n);
        for (uint i = 0; i < n; i++) out[i] = i * i;
        label = "squares";
    }
    function setNote(string memory n) public { note = n; }
    function setTag(bytes32 t) public { tag = t; }
    function pack(uint16 a, bool b, int8 c) public { packedA = a; packedB = b; packedC = c; }
    function pick(uint256 a) public pure returns (string memory) { a; return "one"; }
    function pick(uint256 a, uint256 b) public pure returns (string memory) { a; b; return "two"; }
    function pick(string memory s) public pure returns (string memory) { return s; }
    function chain() public view returns (uint256) { return block.chainid; }
    function env() public view returns (uint256, uint256, address, address) { return (block.number, block.timestamp, tx.origin, block.coinbase); }
}
`;

/** Calls another contract: an EVM contract calling a SolidVM one must fail. */
export const CALLER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
interface Target { function get() external view returns (uint256); }
contract Caller {
    function read(address t) public view returns (uint256) { return Target(t).get(); }
}
`;

export const ONCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Temp {
    uint256 public x = 1;
    function die(address payable to) public { selfdestruct(to); }
}
contract Maker {
    function makeAndKill() public returns (address) { Temp t = new Temp(); t.die(payable(msg.sender)); return address(t); }
}
`;
