@testable import Curlew
import Testing

/// `WaiterList` keeps its first waiter inline and the others in an array: every waiter is
/// resumed once, first come first, however many there are.
@Suite struct WaiterListTests {
    private func contents(_ list: WaiterList<Int>) -> [Int] {
        var seen: [Int] = []
        list.forEach { seen.append($0) }
        return seen
    }

    @Test(arguments: [0, 1, 2, 5])
    func everyWaiterInTheOrderItCame(count: Int) {
        var list = WaiterList<Int>()
        for waiter in 0..<count { list.append(waiter) }
        #expect(contents(list) == Array(0..<count))
        #expect(list.isEmpty == (count == 0))
    }

    @Test func takingAllLeavesTheListEmpty() {
        var list = WaiterList<Int>()
        list.append(1)
        list.append(2)
        let taken = list.takeAll()
        #expect(contents(taken) == [1, 2])
        #expect(list.isEmpty)
        #expect(contents(list).isEmpty)
        list.append(3)
        #expect(contents(list) == [3], "a list taken from is used again from its start")
    }
}
