export const Cart = () => null;
