export const ordersRoute = '/orders';
