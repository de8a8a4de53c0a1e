export default { title: 'Cart' };
