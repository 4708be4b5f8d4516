/// What travels as a message's opaque pointer: the batch and the message's place in it.
final class DeliveryTicket {
    let batch: DeliveryBatch
    let index: Int
    init(batch: DeliveryBatch, index: Int) {
        self.batch = batch
        self.index = index
    }
}
