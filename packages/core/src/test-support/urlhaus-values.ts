// The values the URLhaus feed's tests look up, and the auth key they must never see in a result.

export const KEY = 'urlhaus-test-auth-key-0123456789';
export const IPV4 = '198.51.100.23';
export const DOMAIN = 'malware-host.example.com';
export const URL_ = 'http://malware-host.example.com/bins/mozi.m?x=1&y=2';
export const MD5 = '44d88612fea8a8f36de82e1278abb02f';
export const SHA256 = '275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f';
