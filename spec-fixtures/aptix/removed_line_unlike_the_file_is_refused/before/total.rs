fn total(items: &[Item]) -> u64 {
    let subtotal = items.iter().map(|i| i.price).sum::<u64>();
    let shipping = shipping_cost_for(subtotal);
    subtotal + shipping
}
