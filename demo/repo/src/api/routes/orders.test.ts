import './orders';
